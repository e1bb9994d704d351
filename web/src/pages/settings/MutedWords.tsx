import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useRef, useState, type FormEvent } from 'react';
import { api, ApiError, unwrap } from '../../api/client';
import { ErrorState, Loading } from '../../components/States';

/** What lists of posts and notifications are kept under: all read again once the muted words change. */
const FILTERED_LISTS = ['feed', 'trending', 'user-posts', 'search', 'notifications'];

/**
 * Muted words: add one by typing it and pressing Enter (or Mute), remove one with its button. Every
 * change sends the whole list (PUT /v1/social/muted-words), which the server keeps lowercase and sorted.
 */
export function MutedWords() {
  const client = useQueryClient();
  const [text, setText] = useState('');
  const input = useRef<HTMLInputElement>(null);
  const words = useQuery({ queryKey: ['muted-words'], queryFn: async () => (await unwrap(api.GET('/v1/social/muted-words'))).words });
  const save = useMutation({
    mutationFn: async (next: string[]) => (await unwrap(api.PUT('/v1/social/muted-words', { body: { words: next } }))).words,
    onSuccess: async (saved) => {
      client.setQueryData(['muted-words'], saved);
      await Promise.all(FILTERED_LISTS.map((key) => client.invalidateQueries({ queryKey: [key] })));
    },
  });
  const add = (event: FormEvent) => {
    event.preventDefault();
    const word = text.trim();
    if (!word || !words.data) return;
    save.mutate([...words.data, word], { onSuccess: () => setText('') });
  };
  const remove = (word: string) => {
    if (!words.data) return;
    // The button goes with its word: the field keeps the keyboard's place.
    save.mutate(
      words.data.filter((w) => w !== word),
      { onSuccess: () => input.current?.focus() },
    );
  };
  const error = save.error instanceof ApiError ? save.error.message : save.error ? String(save.error) : null;
  return (
    <section aria-labelledby="muted-words-heading">
      <h2 id="muted-words-heading">Muted words</h2>
      <p className="muted">
        Posts with these words leave your feeds, search and others&apos; profiles, and replies and mentions with them leave your notifications. A word matches
        whole words in any case; <span className="mono">#tag</span> matches that hashtag. Your own posts always stay. Nobody else sees this list.
      </p>
      {words.isPending ? (
        <Loading query={words} count={1} label="Loading muted words" />
      ) : words.isError ? (
        <ErrorState error={words.error} onRetry={() => void words.refetch()} />
      ) : (
        <>
          {words.data.length === 0 ? (
            <p className="muted">You have muted no words.</p>
          ) : (
            <ul className="chips terms muted-words" aria-label="Muted words">
              {words.data.map((word) => (
                <li key={word} className="chip">
                  {word}
                  <button type="button" className="chip-remove" aria-label={`Unmute ${word}`} disabled={save.isPending} onClick={() => remove(word)}>
                    ×
                  </button>
                </li>
              ))}
            </ul>
          )}
          <form className="inline-form" onSubmit={add} noValidate>
            <div className="field">
              <label htmlFor="muted-word">Word, phrase or #tag</label>
              <input
                ref={input}
                id="muted-word"
                value={text}
                maxLength={100}
                autoComplete="off"
                onChange={(e) => setText(e.target.value)}
                aria-invalid={error ? true : undefined}
                aria-describedby="muted-word-message"
              />
            </div>
            <button className="button" type="submit" disabled={save.isPending || !text.trim()}>
              Mute
            </button>
          </form>
          <p id="muted-word-message" className={error ? 'form-error' : 'field-hint'} role={error ? 'alert' : undefined}>
            {error ?? 'Up to 100 words, each up to 100 characters.'}
          </p>
        </>
      )}
    </section>
  );
}
