import { Link } from 'react-router';
import { api, unwrap } from '../api/client';
import { RequireAccount } from '../components/RequireAccount';
import { EndlessList, PostCard } from '../components/Social';
import { EmptyState, SkeletonRows } from '../components/States';
import { useOffsetList, useSocialSelf } from '../lib/social';
import { useTitle } from '../lib/title';

export default function Bookmarks() {
  useTitle('Bookmarks');
  return (
    <RequireAccount>
      <BookmarksPage />
    </RequireAccount>
  );
}

/** `/bookmarks`: the posts one bookmarked, the latest bookmark first. Nobody else sees them. */
function BookmarksPage() {
  const { me, profile } = useSocialSelf();
  const bookmarks = useOffsetList(
    ['bookmarks'],
    async (offset, limit) => {
      const page = await unwrap(api.GET('/v1/social/bookmarks', { params: { query: { limit, offset } } }));
      return { items: page.posts, hasMore: page.pagination.hasMore };
    },
    Boolean(me),
  );
  if (profile.isPending)
    return (
      <div className="page page-medium">
        <SkeletonRows count={3} label="Loading bookmarks" />
      </div>
    );
  return (
    <div className="page page-medium">
      <h1>Bookmarks</h1>
      {!me ? (
        <EmptyState title="Bookmarks belong to your social profile.">
          <Link className="button" to="/signup/profile?next=/bookmarks">
            Create your profile
          </Link>
        </EmptyState>
      ) : (
        <>
          <p className="muted">Only you can see what you bookmarked.</p>
          <EndlessList
            paged={bookmarks}
            keyOf={(post) => post.id}
            label="bookmarked posts, the latest bookmark first"
            className="list feed"
            render={(post) => <PostCard post={post} />}
            empty={
              <EmptyState title="You have bookmarked nothing yet.">
                <p className="muted">Press Bookmark under a post to keep it here.</p>
              </EmptyState>
            }
          />
        </>
      )}
    </div>
  );
}
