import { useRef, useState } from 'react';
import { api, ApiError } from '../api/client';
import { mediaPath, uploadImage } from '../api/media';
import type { Post } from '../api/types';

/** The service's limits on pictures (docs/social.md): how many, and the longest description. */
const MAX_PICTURES = 4;
const MAX_ALT = 1000;

/** A picture being added: uploaded as soon as it is chosen, then described. */
export interface Picture {
  key: string;
  name: string;
  /** Set once the upload is stored. */
  id?: string;
  error?: string;
  alt: string;
  /** The author chose to give no description. */
  noDescription: boolean;
}
/** The `media` a post or comment request carries: absent when there are no pictures. */
export type MediaRequest = { media?: { id: string; alt: string }[] };

const undescribed = (picture: Picture) => picture.alt.trim() === '' && !picture.noDescription;
const altOf = (picture: Picture) => (picture.noDescription ? '' : picture.alt.trim());

/** The pictures a post or a comment is about to carry, and what the form does with them. */
export function usePictures(idPrefix: string) {
  const [pictures, setPictures] = useState<Picture[]>([]);
  /** The picture whose description the author was asked for. */
  const [asked, setAsked] = useState<string | null>(null);
  const change = (key: string, changed: Partial<Picture>) =>
    setPictures((current) => current.map((picture) => (picture.key === key ? { ...picture, ...changed } : picture)));
  const stored = pictures.filter((picture) => picture.id);
  return {
    idPrefix,
    pictures,
    asked,
    full: pictures.length >= MAX_PICTURES,
    uploading: pictures.some((picture) => !picture.id && !picture.error),
    add(files: File[]) {
      const added = files
        .slice(0, MAX_PICTURES - pictures.length)
        .map((file) => ({ file, picture: { key: `${Date.now()}-${Math.random()}`, name: file.name, alt: '', noDescription: false } }));
      setPictures((current) => [...current, ...added.map(({ picture }) => picture)]);
      setAsked(null);
      for (const { file, picture } of added) {
        uploadImage(file).then(
          (uploaded) => change(picture.key, { id: uploaded.id }),
          (caught: unknown) => change(picture.key, { error: caught instanceof ApiError ? caught.message : 'The image could not be uploaded.' }),
        );
      }
    },
    change(key: string, changed: Partial<Picture>) {
      change(key, changed);
      setAsked(null);
    },
    remove(picture: Picture) {
      setPictures((current) => current.filter((p) => p.key !== picture.key));
      setAsked(null);
      // A picture taken out before sending is deleted, so it does not stay in the storage quota.
      if (picture.id) void api.DELETE('/v1/media/{id}', { params: { path: { id: picture.id } } });
    },
    /**
     * Every picture gets a description, or the author's visible choice to give none: false (and the
     * first undescribed picture's field asks, with the focus on it) when one is missing.
     */
    described(): boolean {
      const missing = pictures.find((picture) => picture.id && undescribed(picture));
      if (!missing) return true;
      setAsked(missing.key);
      document.getElementById(`${idPrefix}-alt-${missing.key}`)?.focus();
      return false;
    },
    /** What the service takes, spread into the request body. */
    requestMedia: (): MediaRequest => (stored.length > 0 ? { media: stored.map((picture) => ({ id: picture.id!, alt: altOf(picture) })) } : {}),
    /** The pictures as a post shows them, before the service has answered. */
    shownMedia: (): Post['media'] =>
      stored.map((picture) => ({
        id: picture.id!,
        url: mediaPath(picture.id!),
        width: null,
        height: null,
        alt: altOf(picture),
        mimeType: 'image/png' as const,
      })),
    /** What was sent, to put back if the service refuses it. */
    sent: () => stored,
    clear: () => setPictures([]),
    restore: (sent: Picture[]) => setPictures((current) => (current.length === 0 ? sent : current)),
  };
}

export type PictureChoice = ReturnType<typeof usePictures>;

/** "Add image": opens the file picker; disabled once the form holds as many pictures as it may. */
export function AddImageButton({ choice }: { choice: PictureChoice }) {
  const fileInput = useRef<HTMLInputElement>(null);
  return (
    <>
      <input
        ref={fileInput}
        type="file"
        accept="image/png,image/jpeg,image/gif,image/webp"
        multiple
        hidden
        onChange={(event) => {
          choice.add([...(event.target.files ?? [])]);
          event.target.value = '';
        }}
      />
      <button type="button" className="button button-small" disabled={choice.full} onClick={() => fileInput.current?.click()}>
        Add image
      </button>
    </>
  );
}

/** The chosen pictures, each with its preview, its description field and a way to take it out. */
export function ChosenPictures({ choice, label }: { choice: PictureChoice; label: string }) {
  const { idPrefix: id, pictures, asked } = choice;
  if (pictures.length === 0) return null;
  return (
    <ul className="composer-pictures" aria-label={label}>
      {pictures.map((picture, index) => (
        <li key={picture.key} className="composer-picture">
          <div className="composer-picture-preview">
            {picture.id ? (
              <img src={mediaPath(picture.id)} alt={`Image ${index + 1}: ${picture.name}`} />
            ) : (
              <span className="muted small">{picture.error ? 'Not uploaded' : 'Uploading…'}</span>
            )}
          </div>
          <div className="composer-picture-fields">
            {picture.error ? (
              <p className="form-error" role="alert">
                {picture.name}: {picture.error}
              </p>
            ) : (
              <>
                <label htmlFor={`${id}-alt-${picture.key}`}>Description of image {index + 1} (alt text)</label>
                <textarea
                  id={`${id}-alt-${picture.key}`}
                  rows={2}
                  maxLength={MAX_ALT}
                  value={picture.alt}
                  disabled={picture.noDescription}
                  placeholder="What the image shows, for people who cannot see it"
                  aria-invalid={asked === picture.key || undefined}
                  aria-describedby={asked === picture.key ? `${id}-ask-${picture.key}` : undefined}
                  onChange={(event) => choice.change(picture.key, { alt: event.target.value })}
                />
                <label className="composer-no-alt">
                  <input
                    type="checkbox"
                    checked={picture.noDescription}
                    onChange={(event) => choice.change(picture.key, { noDescription: event.target.checked })}
                  />{' '}
                  No description
                </label>
                {asked === picture.key && (
                  <p className="form-error" id={`${id}-ask-${picture.key}`} role="alert">
                    Describe this image, or choose “No description”.
                  </p>
                )}
              </>
            )}
            <button type="button" className="button button-small" onClick={() => choice.remove(picture)}>
              Remove image {index + 1}
            </button>
          </div>
        </li>
      ))}
    </ul>
  );
}
