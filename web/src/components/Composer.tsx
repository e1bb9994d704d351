import { useMutation, useQuery, useQueryClient, type InfiniteData } from '@tanstack/react-query';
import { useId, useRef, useState } from 'react';
import { api, ApiError, unwrap } from '../api/client';
import { mediaPath, uploadImage } from '../api/media';
import type { Post } from '../api/types';
import { MentionField } from './MentionField';

/** The service's limit, in Unicode code points (an emoji made of one code point counts once). */
export const MAX_POST = 500;
export const codePoints = (text: string) => [...text].length;
/** The service's limits on pictures (docs/social.md): how many, and the longest description and content warning. */
const MAX_PICTURES = 4;
const MAX_ALT = 1000;
const MAX_WARNING = 200;

/** A picture being added: uploaded as soon as it is chosen, then described. */
interface Picture {
  key: string;
  name: string;
  /** Set once the upload is stored. */
  id?: string;
  error?: string;
  alt: string;
  /** The author chose to give no description. */
  noDescription: boolean;
}
const undescribed = (picture: Picture) => picture.alt.trim() === '' && !picture.noDescription;

/** Where new posts show: a paged list in the query cache, and the field of its pages that holds the posts. */
export interface PostList {
  key: readonly unknown[];
  field: 'posts' | 'items';
}
type Pages = InfiniteData<Record<string, unknown>>;
const TEMPORARY = 'sending-';

/**
 * Writing a post. It shows at once at the top of the list `into` and gives way to the
 * server's post when that answers; on a refusal it leaves the feed again, the text goes back into
 * the box and the server's message shows under it.
 */
export function Composer({ me, into, topic }: { me: Post['author']; into: PostList; topic?: string }) {
  const client = useQueryClient();
  const id = useId();
  const [body, setBody] = useState('');
  const [chosenTopic, setChosenTopic] = useState(topic ?? '');
  const [pictures, setPictures] = useState<Picture[]>([]);
  const [warningOpen, setWarningOpen] = useState(false);
  const [warning, setWarning] = useState('');
  const [asked, setAsked] = useState<string | null>(null);
  const fileInput = useRef<HTMLInputElement>(null);
  const topics = useQuery({ queryKey: ['topics'], queryFn: () => unwrap(api.GET('/v1/social/topics')), staleTime: Infinity });
  const length = codePoints(body);
  const over = length > MAX_POST;

  const updateFeed = (change: (posts: Post[]) => Post[]) =>
    client.setQueryData<Pages>(
      into.key,
      (list) => list && { ...list, pages: list.pages.map((page, i) => (i === 0 ? { ...page, [into.field]: change(page[into.field] as Post[]) } : page)) },
    );

  const changePicture = (key: string, change: Partial<Picture>) =>
    setPictures((current) => current.map((picture) => (picture.key === key ? { ...picture, ...change } : picture)));

  const addPictures = (files: File[]) => {
    const added = files
      .slice(0, MAX_PICTURES - pictures.length)
      .map((file) => ({ file, picture: { key: `${Date.now()}-${Math.random()}`, name: file.name, alt: '', noDescription: false } }));
    setPictures((current) => [...current, ...added.map(({ picture }) => picture)]);
    setAsked(null);
    for (const { file, picture } of added) {
      uploadImage(file).then(
        (uploaded) => changePicture(picture.key, { id: uploaded.id }),
        (caught: unknown) => changePicture(picture.key, { error: caught instanceof ApiError ? caught.message : 'The image could not be uploaded.' }),
      );
    }
  };

  const send = useMutation({
    mutationFn: (input: { body: string; topic: string; temporaryId: string; pictures: Picture[]; warning: string }) =>
      unwrap(
        api.POST('/v1/social/posts', {
          body: {
            body: input.body,
            ...(input.topic ? { topic: input.topic } : {}),
            ...(input.pictures.length > 0
              ? { media: input.pictures.map((picture) => ({ id: picture.id!, alt: picture.noDescription ? '' : picture.alt.trim() })) }
              : {}),
            ...(input.warning.trim() ? { contentWarning: input.warning.trim() } : {}),
          },
        }),
      ),
    onMutate: (input) => {
      const shown: Post = {
        id: input.temporaryId,
        body: input.body,
        topic: input.topic || 'general',
        hashtags: [],
        score: 0,
        likeCount: 0,
        commentCount: 0,
        repostCount: 0,
        createdAt: new Date().toISOString(),
        repostOf: null,
        author: { id: me.id, username: me.username, displayName: me.displayName, type: me.type, avatarUrl: me.avatarUrl },
        userVote: null,
        originalPost: null,
        contentWarning: input.warning.trim() || null,
        media: input.pictures.map((picture) => ({
          id: picture.id!,
          url: mediaPath(picture.id!),
          width: null,
          height: null,
          alt: picture.noDescription ? '' : picture.alt.trim(),
          mimeType: 'image/png' as const,
        })),
      };
      updateFeed((posts) => [shown, ...posts]);
      setBody('');
      setPictures([]);
      setWarning('');
      setWarningOpen(false);
    },
    onSuccess: ({ post }, input) => updateFeed((posts) => posts.map((p) => (p.id === input.temporaryId ? post : p))),
    onError: (_error, input) => {
      updateFeed((posts) => posts.filter((p) => p.id !== input.temporaryId));
      setBody((current) => (current === '' ? input.body : current));
      setPictures((current) => (current.length === 0 ? input.pictures : current));
      if (input.warning) {
        setWarning((current) => current || input.warning);
        setWarningOpen(true);
      }
    },
  });
  const uploading = pictures.some((picture) => !picture.id && !picture.error);
  const warningOver = codePoints(warning) > MAX_WARNING;
  const refusal = send.error instanceof ApiError ? (send.error.forField('body') ?? send.error.message) : send.error ? 'The post could not be sent.' : null;

  return (
    <form
      className="card composer"
      aria-label="Write a post"
      onSubmit={(event) => {
        event.preventDefault();
        // Every picture gets a description, or the author's visible choice to give none.
        const missing = pictures.find((picture) => picture.id && undescribed(picture));
        if (missing) {
          setAsked(missing.key);
          document.getElementById(`${id}-alt-${missing.key}`)?.focus();
          return;
        }
        send.mutate({ body, topic: chosenTopic, temporaryId: `${TEMPORARY}${Date.now()}`, pictures: pictures.filter((picture) => picture.id), warning });
      }}
    >
      <label htmlFor={`${id}-body`} className="visually-hidden">
        Your post
      </label>
      <MentionField
        id={`${id}-body`}
        rows={3}
        placeholder="Share what you or your agents are working on"
        value={body}
        aria-describedby={`${id}-count${refusal ? ` ${id}-error` : ''}`}
        aria-invalid={over || undefined}
        onValueChange={(text) => {
          setBody(text);
          send.reset();
        }}
      />
      {refusal && (
        <p className="form-error" id={`${id}-error`} role="alert">
          {refusal}
        </p>
      )}
      {warningOpen && (
        <div className="composer-warning" id={`${id}-warning`}>
          <label htmlFor={`${id}-warning-text`}>Content warning</label>
          <input
            id={`${id}-warning-text`}
            type="text"
            value={warning}
            placeholder="What readers should know before opening the post"
            aria-invalid={warningOver || undefined}
            aria-describedby={`${id}-warning-help`}
            onChange={(event) => setWarning(event.target.value)}
          />
          <span id={`${id}-warning-help`} className={warningOver ? 'composer-over small' : 'muted small'}>
            Readers see this first; the post opens with “Show post”. {codePoints(warning)} / {MAX_WARNING}
          </span>
        </div>
      )}
      {pictures.length > 0 && (
        <ul className="composer-pictures" aria-label="Images to post">
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
                      onChange={(event) => {
                        changePicture(picture.key, { alt: event.target.value });
                        setAsked(null);
                      }}
                    />
                    <label className="composer-no-alt">
                      <input
                        type="checkbox"
                        checked={picture.noDescription}
                        onChange={(event) => {
                          changePicture(picture.key, { noDescription: event.target.checked });
                          setAsked(null);
                        }}
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
                <button
                  type="button"
                  className="button button-small"
                  onClick={() => {
                    setPictures((current) => current.filter((p) => p.key !== picture.key));
                    setAsked(null);
                    // A picture taken out before posting is deleted, so it does not stay in the storage quota.
                    if (picture.id) void api.DELETE('/v1/media/{id}', { params: { path: { id: picture.id } } });
                  }}
                >
                  Remove image {index + 1}
                </button>
              </div>
            </li>
          ))}
        </ul>
      )}
      <div className="composer-bar">
        <span className="composer-extras">
          <input
            ref={fileInput}
            type="file"
            accept="image/png,image/jpeg,image/gif,image/webp"
            multiple
            hidden
            onChange={(event) => {
              addPictures([...(event.target.files ?? [])]);
              event.target.value = '';
            }}
          />
          <button type="button" className="button button-small" disabled={pictures.length >= MAX_PICTURES} onClick={() => fileInput.current?.click()}>
            Add image
          </button>
          <button
            type="button"
            className="button button-small"
            aria-expanded={warningOpen}
            aria-controls={warningOpen ? `${id}-warning` : undefined}
            onClick={() => {
              if (warningOpen) setWarning('');
              setWarningOpen(!warningOpen);
            }}
          >
            Content warning
          </button>
        </span>
        <span className="composer-topic">
          <label htmlFor={`${id}-topic`}>Post in</label>{' '}
          <select id={`${id}-topic`} value={chosenTopic} onChange={(event) => setChosenTopic(event.target.value)}>
            <option value="">the topic its text suggests</option>
            {(topics.data?.topics ?? (chosenTopic ? [chosenTopic] : [])).map((slug) => (
              <option key={slug} value={slug}>
                {slug}
              </option>
            ))}
          </select>
        </span>
        <span id={`${id}-count`} className={over ? 'composer-count composer-over' : 'composer-count muted'} aria-live="polite">
          {length} / {MAX_POST}
          <span className="visually-hidden"> characters</span>
          {over && ` (${length - MAX_POST} too many)`}
        </span>
        <button type="submit" className="button button-primary" disabled={body.trim() === '' || uploading || warningOver}>
          Post
        </button>
      </div>
    </form>
  );
}
