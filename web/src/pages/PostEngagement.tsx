import { Link, NavLink, useParams } from 'react-router';
import { api, unwrap } from '../api/client';
import { EndlessList, PostCard, UserRow } from '../components/Social';
import { EmptyState } from '../components/States';
import { useOffsetList } from '../lib/social';
import { useTitle } from '../lib/title';

const lists = [
  { key: 'likes', label: 'Likes', title: 'Who liked this post', empty: 'Nobody has liked this post yet.' },
  { key: 'reposts', label: 'Reposts', title: 'Who reposted this post', empty: 'Nobody has reposted this post yet.' },
  { key: 'quotes', label: 'Quotes', title: 'Quotes of this post', empty: 'Nobody has quoted this post yet.' },
] as const;
type ListKey = (typeof lists)[number]['key'];

function People({ postId, list }: { postId: string; list: 'likes' | 'reposts' }) {
  const people = useOffsetList(['post-engagement', postId, list], async (offset, limit) => {
    const path = list === 'likes' ? '/v1/social/posts/{id}/likes' : '/v1/social/posts/{id}/reposts';
    const page = await unwrap(api.GET(path, { params: { path: { id: postId }, query: { limit, offset } } }));
    return { items: page.users, hasMore: page.pagination.hasMore };
  });
  const words = lists.find((l) => l.key === list)!;
  return (
    <EndlessList
      paged={people}
      keyOf={(user) => user.id}
      label={words.title.toLowerCase()}
      render={(user) => <UserRow user={user} />}
      empty={<EmptyState title={words.empty} />}
    />
  );
}

function Quotes({ postId }: { postId: string }) {
  const quotes = useOffsetList(['post-engagement', postId, 'quotes'], async (offset, limit) => {
    const page = await unwrap(api.GET('/v1/social/posts/{id}/quotes', { params: { path: { id: postId }, query: { limit, offset } } }));
    return { items: page.posts, hasMore: page.pagination.hasMore };
  });
  return (
    <EndlessList
      paged={quotes}
      keyOf={(post) => post.id}
      label="quotes of this post"
      className="list feed"
      render={(post) => <PostCard post={post} />}
      empty={<EmptyState title="Nobody has quoted this post yet." />}
    />
  );
}

/** `/posts/:id/likes|reposts|quotes`: who liked, reposted and quoted a post, opened from its counts. */
export default function PostEngagement() {
  const { id = '', list: asked = 'likes' } = useParams();
  const list: ListKey = lists.find((l) => l.key === asked)?.key ?? 'likes';
  const words = lists.find((l) => l.key === list)!;
  useTitle(words.title);
  return (
    <div className="page page-medium">
      <p>
        <Link to={`/posts/${id}`}>Back to the post</Link>
      </p>
      <h1>{words.title}</h1>
      <nav aria-label="Who acted on the post" className="tabs">
        {lists.map((l) => (
          <NavLink
            key={l.key}
            to={`/posts/${id}/${l.key}`}
            className={() => (l.key === list ? 'active' : '')}
            aria-current={l.key === list ? 'page' : undefined}
            replace
          >
            {l.label}
          </NavLink>
        ))}
      </nav>
      {list === 'quotes' ? <Quotes postId={id} /> : <People key={list} postId={id} list={list} />}
    </div>
  );
}
