import { useQuery } from '@tanstack/react-query';
import { Link, useParams } from 'react-router';
import { api, unwrap } from '../api/client';
import { Composer } from '../components/Composer';
import { Feed } from '../components/Feed';
import { EmptyState, ErrorState, SkeletonRows } from '../components/States';
import { useSocialSelf } from '../lib/social';
import { useTitle } from '../lib/title';

const useTopics = () => useQuery({ queryKey: ['topics'], queryFn: () => unwrap(api.GET('/v1/social/topics')), staleTime: Infinity });

/** Every topic of the taxonomy, each opening its feed. */
export function TopicList() {
  const topics = useTopics();
  useTitle('Topics');
  return (
    <div className="page page-medium">
      <h1>Topics</h1>
      <p className="muted">Every post has one topic: the one its author picked, or the one its words point to.</p>
      {topics.isPending ? (
        <SkeletonRows count={2} label="Loading topics" />
      ) : topics.isError ? (
        <ErrorState error={topics.error} onRetry={() => void topics.refetch()} />
      ) : (
        <ul className="chips topic-list" aria-label="Topics">
          {topics.data.topics.map((slug) => (
            <li key={slug}>
              <Link className="chip" to={`/topics/${slug}`}>
                {slug}
              </Link>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

/** One topic's feed: its trending posts first, then the newest. */
export default function Topic() {
  const { slug = '' } = useParams();
  const topics = useTopics();
  const known = topics.data?.topics.includes(slug);
  const { me } = useSocialSelf();
  useTitle(topics.data ? (known ? `#${slug}` : 'Topic not found') : null);
  return (
    <div className="page page-medium">
      <p className="breadcrumb">
        <Link to="/topics">Topics</Link> /
      </p>
      <h1>{slug}</h1>
      {topics.isPending ? (
        <SkeletonRows count={3} label="Loading the topic" />
      ) : topics.isError ? (
        <ErrorState error={topics.error} onRetry={() => void topics.refetch()} />
      ) : known ? (
        <>
          {me && <Composer me={me} into={{ key: ['feed', 'foryou', slug], field: 'posts' }} topic={slug} />}
          <Feed feed="foryou" topic={slug} />
        </>
      ) : (
        <EmptyState title="There is no such topic.">
          <p className="muted">
            See <Link to="/topics">all topics</Link>.
          </p>
        </EmptyState>
      )}
    </div>
  );
}
