import { useQuery } from '@tanstack/react-query';
import { useEffect, useId, useRef, useState, type TextareaHTMLAttributes } from 'react';
import { api, unwrap } from '../api/client';
import type { UserSummary } from '../api/types';
import { Avatar, Name } from './Social';
import { flushSync } from 'react-dom';

/** An `@name` being typed just before the caret, as the service reads a mention: not glued to a word before it. */
const typedMention = /(?<![\p{L}\p{N}_@#&])@([A-Za-z0-9_]{1,25})$/u;
const SHOWN = 6;

/** People (humans and agents) whose username or name holds `q`, those whose username starts with it first. */
async function peopleMatching(q: string): Promise<UserSummary[]> {
  const pages = await Promise.all(
    (['humans', 'agents'] as const).map((tab) => unwrap(api.GET('/v1/social/search', { params: { query: { q, tab, limit: SHOWN, offset: 0 } } }))),
  );
  const users = pages.flatMap((page) => ('users' in page ? page.users : []));
  const lower = q.toLowerCase();
  const rank = (u: UserSummary) => (u.username.toLowerCase().startsWith(lower) ? 0 : u.username.toLowerCase().includes(lower) ? 1 : 2);
  return users
    .filter((u) => rank(u) < 2 || u.displayName.toLowerCase().includes(lower))
    .sort((a, b) => rank(a) - rank(b) || b.followerCount - a.followerCount)
    .slice(0, SHOWN);
}

function useDebounced<T>(value: T, ms: number): T {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    const timer = setTimeout(() => setSettled(value), ms);
    return () => clearTimeout(timer);
  }, [value, ms]);
  return settled;
}

/**
 * A textarea for a post's text that offers the people matching an `@name` being typed: the list
 * (a listbox) is the textarea's, through aria-controls and aria-activedescendant, so the focus
 * stays in the text. Up and Down choose, Enter or Tab insert the username, Escape closes the list.
 */
export function MentionField({
  value,
  onValueChange,
  ...rest
}: { value: string; onValueChange: (text: string) => void } & Omit<TextareaHTMLAttributes<HTMLTextAreaElement>, 'value' | 'onChange'>) {
  const id = useId();
  const box = useRef<HTMLTextAreaElement>(null);
  const [caret, setCaret] = useState(0);
  const [active, setActive] = useState(0);
  /** The text before the caret when Escape closed the list: it stays closed until that changes. */
  const [dismissed, setDismissed] = useState<string | null>(null);
  const before = value.slice(0, caret);
  const typed = typedMention.exec(before)?.[1] ?? null;
  const q = useDebounced(typed, 150);
  const found = useQuery({
    queryKey: ['mention', q?.toLowerCase()],
    enabled: q !== null,
    queryFn: () => peopleMatching(q!),
    staleTime: 30_000,
  });
  const options = typed !== null && q === typed && dismissed !== before ? (found.data ?? []) : [];
  const open = options.length > 0;
  const activeIndex = Math.min(active, options.length - 1);

  const readCaret = () => setCaret(box.current?.selectionStart ?? 0);
  const pick = (user: UserSummary) => {
    const start = caret - (typed?.length ?? 0) - 1;
    const inserted = `@${user.username} `;
    const next = value.slice(0, start) + inserted + value.slice(caret);
    const at = start + inserted.length;
    // Rendered now, so that the caret set next is not moved by the new value's render.
    flushSync(() => {
      onValueChange(next);
      setActive(0);
      setCaret(at);
    });
    box.current?.setSelectionRange(at, at);
  };

  return (
    <div className="mention-field">
      <textarea
        {...rest}
        ref={box}
        value={value}
        aria-autocomplete="list"
        aria-controls={open ? `${id}-people` : undefined}
        aria-activedescendant={open ? `${id}-person-${activeIndex}` : undefined}
        onChange={(event) => {
          onValueChange(event.target.value);
          setCaret(event.target.selectionStart);
          // New text: the list opens again (after an Escape) and starts from its first person.
          setDismissed(null);
          setActive(0);
        }}
        onSelect={readCaret}
        onClick={readCaret}
        onBlur={() => setDismissed(before)}
        onFocus={() => setDismissed(null)}
        onKeyDown={(event) => {
          if (!open) return;
          if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
            event.preventDefault();
            const step = event.key === 'ArrowDown' ? 1 : -1;
            setActive((activeIndex + step + options.length) % options.length);
          } else if (event.key === 'Enter' || event.key === 'Tab') {
            event.preventDefault();
            pick(options[activeIndex]!);
          } else if (event.key === 'Escape') {
            event.preventDefault();
            setDismissed(before);
            setActive(0);
          }
        }}
      />
      {open && (
        <ul className="mention-list" role="listbox" id={`${id}-people`} aria-label="People to mention">
          {options.map((user, i) => (
            <li
              key={user.id}
              id={`${id}-person-${i}`}
              role="option"
              aria-selected={i === activeIndex}
              className={i === activeIndex ? 'mention-option active' : 'mention-option'}
              // Keep the focus (and the caret) in the text while choosing with the pointer.
              onMouseDown={(event) => event.preventDefault()}
              onClick={() => pick(user)}
            >
              <Avatar user={user} size={24} />
              <Name>{user.displayName}</Name> <span className="muted">@{user.username}</span>
            </li>
          ))}
        </ul>
      )}
      <span className="visually-hidden" aria-live="polite">
        {open ? `${options.length} ${options.length === 1 ? 'person matches' : 'people match'}: up and down arrows choose, Enter inserts, Escape closes.` : ''}
      </span>
    </div>
  );
}
