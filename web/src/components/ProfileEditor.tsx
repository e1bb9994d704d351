import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useId, useRef, useState, type FormEvent } from 'react';
import { api, ApiError, unwrap } from '../api/client';
import { uploadImage } from '../api/media';
import type { MyProfile as Profile } from '../api/types';
import { safeHttpUrl } from '../lib/format';
import { Avatar } from './Social';

const BIO_MAX = 300;
const NAME_MAX = 50;
const asApiError = (caught: unknown) => (caught instanceof ApiError ? caught : new ApiError(0, 'UNKNOWN', String(caught)));

/**
 * One's own display name, bio and avatar. A chosen image is uploaded at once (POST /v1/media) and
 * shown; it becomes the avatar when the form is saved. `onSaved` runs after the service accepted it.
 */
export function ProfileEditor({
  profile,
  onSaved,
  onCancel,
  focusFirst = false,
}: {
  profile: Pick<Profile, 'displayName' | 'bio' | 'avatarUrl'>;
  onSaved?: (saved: Profile) => void;
  onCancel?: () => void;
  /** Put the focus in the first field when the form appears (it was opened on purpose). */
  focusFirst?: boolean;
}) {
  const client = useQueryClient();
  const id = useId();
  const [displayName, setDisplayName] = useState(profile.displayName);
  const [bio, setBio] = useState(profile.bio);
  const [avatarUrl, setAvatarUrl] = useState(profile.avatarUrl);
  /** Where this page shows a just uploaded image from (its own origin, whatever the service's public address). */
  const [preview, setPreview] = useState<string | null>(null);
  const [uploading, setUploading] = useState(false);
  const [uploadError, setUploadError] = useState<string | null>(null);
  const [error, setError] = useState<ApiError | null>(null);
  const [saving, setSaving] = useState(false);
  const [saved, setSaved] = useState(false);
  const first = useRef<HTMLInputElement>(null);
  useEffect(() => {
    if (focusFirst) first.current?.focus();
  }, [focusFirst]);

  const choose = async (file: File | undefined) => {
    if (!file) return;
    setUploadError(null);
    setSaved(false);
    setUploading(true);
    try {
      const uploaded = await uploadImage(file);
      setAvatarUrl(uploaded.url);
      setPreview(uploaded.preview);
    } catch (caught) {
      setUploadError(asApiError(caught).message);
    } finally {
      setUploading(false);
    }
  };

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setError(null);
    setSaved(false);
    setSaving(true);
    try {
      const body = { displayName: displayName.trim(), bio, ...(avatarUrl !== profile.avatarUrl ? { avatarUrl } : {}) };
      const { data } = await unwrap(api.PATCH('/v1/users/me', { body }));
      client.setQueryData(['profile'], data);
      // Every place that shows the name or the picture reads it again.
      await Promise.all([['social-profile'], ['user-posts'], ['feed'], ['post']].map((queryKey) => client.invalidateQueries({ queryKey })));
      setSaved(true);
      onSaved?.(data);
    } catch (caught) {
      setError(asApiError(caught));
    } finally {
      setSaving(false);
    }
  };

  const shownImage = preview ?? safeHttpUrl(avatarUrl);
  const nameProblem =
    error?.forField('displayName') ?? (displayName.trim() === '' ? 'Required' : [...displayName].length > NAME_MAX ? `At most ${NAME_MAX} characters` : null);
  const otherError = error && !error.forField('displayName') && !error.forField('bio') && !error.forField('avatarUrl') ? error.message : null;
  return (
    <form onSubmit={submit} noValidate className="profile-editor" aria-label="Edit your profile">
      <fieldset className="field avatar-field">
        <legend>Avatar</legend>
        <div className="avatar-choice">
          {shownImage ? (
            <img
              className="avatar avatar-image"
              src={shownImage}
              alt="Your avatar"
              width={64}
              height={64}
              style={{ width: 64, height: 64 }}
              referrerPolicy="no-referrer"
            />
          ) : (
            <Avatar user={{ displayName: displayName || '?', avatarUrl: null }} size={64} />
          )}
          <div className="avatar-buttons">
            <label className="button button-small file-button">
              {avatarUrl ? 'Change image' : 'Upload an image'}
              <input
                type="file"
                className="visually-hidden"
                accept="image/png,image/jpeg,image/gif,image/webp"
                aria-describedby={`${id}-avatar`}
                disabled={uploading}
                onChange={(event) => {
                  void choose(event.target.files?.[0]);
                  event.target.value = '';
                }}
              />
            </label>
            {avatarUrl && (
              <button
                type="button"
                className="button button-small"
                onClick={() => {
                  setAvatarUrl(null);
                  setPreview(null);
                  setSaved(false);
                }}
              >
                Remove image
              </button>
            )}
          </div>
        </div>
        <p id={`${id}-avatar`} className={uploadError || error?.forField('avatarUrl') ? 'field-error' : 'field-hint'} role={uploadError ? 'alert' : undefined}>
          {uploadError ??
            error?.forField('avatarUrl') ??
            (uploading ? 'Uploading…' : 'PNG, JPEG, GIF or WebP up to 5 MB, shown once you save. Anyone with its address can see it.')}
        </p>
      </fieldset>
      <div className="field">
        <label htmlFor={`${id}-name`}>Display name</label>
        <input
          ref={first}
          id={`${id}-name`}
          value={displayName}
          onChange={(e) => setDisplayName(e.target.value)}
          aria-describedby={`${id}-name-message`}
          aria-invalid={nameProblem ? true : undefined}
        />
        <p id={`${id}-name-message`} className="field-error">
          {nameProblem}
        </p>
      </div>
      <div className="field">
        <label htmlFor={`${id}-bio`}>Bio</label>
        <textarea id={`${id}-bio`} value={bio} onChange={(e) => setBio(e.target.value)} aria-describedby={`${id}-bio-message`} />
        <p id={`${id}-bio-message`} className={error?.forField('bio') || [...bio].length > BIO_MAX ? 'field-error' : 'field-hint'}>
          {error?.forField('bio') ?? `${BIO_MAX - [...bio].length} characters left`}
        </p>
      </div>
      {otherError && (
        <p className="form-error" role="alert">
          {otherError}
        </p>
      )}
      <div className="form-actions">
        <button className="button button-primary" type="submit" disabled={uploading || saving}>
          Save profile
        </button>
        {onCancel && (
          <button className="button" type="button" onClick={onCancel}>
            Cancel
          </button>
        )}
        <span role="status" className="field-ok">
          {saved ? 'Saved.' : ''}
        </span>
      </div>
    </form>
  );
}
