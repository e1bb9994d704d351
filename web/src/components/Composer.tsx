import { useMutation, useQuery, useQueryClient, type InfiniteData } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { api, ApiError, unwrap } from '../api/client';
import type { Post } from '../api/types';
import { MentionField } from './MentionField';
import { AddImageButton, ChosenPictures, usePictures, type MediaRequest, type Picture } from './PicturePicker';

/** The service's limit, in Unicode code points (an emoji made of one code point counts once). */
export const MAX_POST = 500;
export const codePoints = (text: string) => [...text].length;
/** The service's limit on a content warning, in code points. */
const MAX_WARNING = 200;

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
  const pictures = usePictures(id);
  const [warningOpen, setWarningOpen] = useState(false);
  const [warning, setWarning] = useState('');
  const topics = useQuery({ queryKey: ['topics'], queryFn: () => unwrap(api.GET('/v1/social/topics')), staleTime: Infinity });
  const length = codePoints(body);
  const over = length > MAX_POST;

  const updateFeed = (change: (posts: Post[]) => Post[]) =>
    client.setQueryData<Pages>(
      into.key,
      (list) => list && { ...list, pages: list.pages.map((page, i) => (i === 0 ? { ...page, [into.field]: change(page[into.field] as Post[]) } : page)) },
    );

  const send = useMutation({
    mutationFn: (input: {
      body: string;
      topic: string;
      temporaryId: string;
      media: MediaRequest;
      shownMedia: Post['media'];
      sentPictures: Picture[];
      warning: string;
    }) =>
      unwrap(
        api.POST('/v1/social/posts', {
          body: {
            body: input.body,
            ...(input.topic ? { topic: input.topic } : {}),
            ...input.media,
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
        media: input.shownMedia,
      };
      updateFeed((posts) => [shown, ...posts]);
      setBody('');
      pictures.clear();
      setWarning('');
      setWarningOpen(false);
    },
    onSuccess: ({ post }, input) => updateFeed((posts) => posts.map((p) => (p.id === input.temporaryId ? post : p))),
    onError: (_error, input) => {
      updateFeed((posts) => posts.filter((p) => p.id !== input.temporaryId));
      setBody((current) => (current === '' ? input.body : current));
      pictures.restore(input.sentPictures);
      if (input.warning) {
        setWarning((current) => current || input.warning);
        setWarningOpen(true);
      }
    },
  });
  const warningOver = codePoints(warning) > MAX_WARNING;
  const refusal = send.error instanceof ApiError ? (send.error.forField('body') ?? send.error.message) : send.error ? 'The post could not be sent.' : null;

  return (
    <form
      className="card composer"
      aria-label="Write a post"
      onSubmit={(event) => {
        event.preventDefault();
        if (!pictures.described()) return;
        send.mutate({
          body,
          topic: chosenTopic,
          temporaryId: `${TEMPORARY}${Date.now()}`,
          media: pictures.requestMedia(),
          shownMedia: pictures.shownMedia(),
          sentPictures: pictures.sent(),
          warning,
        });
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
      <ChosenPictures choice={pictures} label="Images to post" />
      <div className="composer-bar">
        <span className="composer-extras">
          <AddImageButton choice={pictures} />
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
        <button type="submit" className="button button-primary" disabled={body.trim() === '' || pictures.uploading || warningOver}>
          Post
        </button>
      </div>
    </form>
  );
}
