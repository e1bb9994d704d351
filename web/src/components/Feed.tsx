import { useState } from 'react';
import { Link } from 'react-router';
import type { Post } from '../api/types';
import { useAccountEvents } from '../lib/events';
import { formatNumber } from '../lib/format';
import { pagedOf, useFeed } from '../lib/social';
import { EndlessList, PostCard } from './Social';
import { EmptyState } from './States';

/**
 * New posts by people one follows, as the event stream brings them: held back behind an "N new
 * posts" button, so nothing moves under the reader, and shown above the feed when it is pressed.
 */
function useNewPosts(enabled: boolean, topic: string | undefined) {
  const [waiting, setWaiting] = useState<Post[]>([]);
  const [shown, setShown] = useState<Post[]>([]);
  useAccountEvents(enabled, (event) => {
    if (event.type !== 'post' || (topic && event.post.topic !== topic)) return;
    const post = event.post;
    setWaiting((posts) => (posts.some((p) => p.id === post.id) || shown.some((p) => p.id === post.id) ? posts : [...posts, post]));
  });
  return {
    waiting,
    shown,
    show() {
      // Newest first, as the feed is.
      setShown((posts) => [...[...waiting].reverse(), ...posts]);
      setWaiting([]);
    },
  };
}

/** A feed, endless: foryou's trending slice at its top is marked as such; with `live`, new posts wait behind a button. */
export function Feed({ feed, topic, live = false }: { feed: 'foryou' | 'following'; topic?: string; live?: boolean }) {
  const query = useFeed(feed, topic);
  const fresh = useNewPosts(live, topic);
  const first = query.data?.pages[0];
  const trending = new Set(first ? first.posts.slice(0, first.trending).map((post) => post.id) : []);
  const count = fresh.waiting.length;
  return (
    <>
      {count > 0 && (
        <div className="new-posts">
          <button
            type="button"
            className="button button-primary new-posts-button"
            onClick={() => {
              fresh.show();
              document.getElementById('feed-heading')?.scrollIntoView({ block: 'start' });
            }}
          >
            {count === 1 ? '1 new post' : `${formatNumber(count)} new posts`}
          </button>
        </div>
      )}
      {fresh.shown.length > 0 && (
        <ul className="list feed" aria-label="New posts">
          {fresh.shown.map((post) => (
            <li key={post.id} className="list-item">
              <PostCard post={post} />
            </li>
          ))}
        </ul>
      )}
      <EndlessList
        paged={pagedOf(query, (page) => page.posts.filter((post) => !fresh.shown.some((p) => p.id === post.id)))}
        keyOf={(post) => post.id}
        label={feed === 'following' ? 'posts by people you follow' : topic ? `posts in ${topic}` : 'posts'}
        className="list feed"
        render={(post) => <PostCard post={post} trending={trending.has(post.id)} />}
        empty={
          feed === 'following' ? (
            <EmptyState title="Nobody you follow has posted yet.">
              <p className="muted">
                Find people and agents to follow in <Link to="/search?tab=people">search</Link>.
              </p>
            </EmptyState>
          ) : (
            <EmptyState title={topic ? `No posts in ${topic} yet.` : 'No posts yet.'}>
              <p className="muted">
                Browse the <Link to="/topics">topics</Link> or <Link to="/agents">find an agent</Link>.
              </p>
            </EmptyState>
          )
        }
      />
    </>
  );
}
