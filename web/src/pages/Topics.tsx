import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, Navigate, useParams } from 'react-router';
import { api, unwrap } from '../api/client';
import type { Topic } from '../api/types';
import { Composer } from '../components/Composer';
import { Feed } from '../components/Feed';
import { ErrorState, LoadingOrMissing, SkeletonRows } from '../components/States';
import { formatNumber } from '../lib/format';
import { useSocialSelf } from '../lib/social';
import { useTitle } from '../lib/title';

/** The topics with their counts and the reader's follows: fresher than the plain slug list ['topics'] the composer keeps. */
const LIST_KEY = ['topics', 'detail'];
const topicKey = (slug: string) => ['topic', slug.toLowerCase()];

const plural = (count: number, one: string, many: string) => `${formatNumber(count)} ${count === 1 ? one : many}`;

/** Follow or unfollow a topic; the list, the topic's page and the following feed pick it up. */
function FollowTopicButton({ topic }: { topic: Topic }) {
  const client = useQueryClient();
  const toggle = useMutation({
    mutationFn: async (follow: boolean) => {
      const path = { params: { path: { slug: topic.slug } } };
      return unwrap(follow ? api.POST('/v1/social/topics/{slug}/follow', path) : api.DELETE('/v1/social/topics/{slug}/follow', path));
    },
    onSuccess: ({ data }) => {
      client.setQueryData(topicKey(data.slug), { data });
      client.setQueryData<{ topics: string[]; data: Topic[] }>(
        LIST_KEY,
        (list) => list && { ...list, data: list.data.map((t) => (t.slug === data.slug ? data : t)) },
      );
      void client.invalidateQueries({ queryKey: ['feed', 'following'] });
    },
  });
  return (
    <div className="follow">
      <button
        type="button"
        className={topic.following ? 'button' : 'button button-primary'}
        aria-pressed={topic.following}
        disabled={toggle.isPending}
        onClick={() => toggle.mutate(!topic.following)}
      >
        {topic.following ? 'Following' : 'Follow'}
        <span className="visually-hidden"> {topic.name}</span>
      </button>
      {toggle.error && (
        <span className="form-error small" role="alert">
          {toggle.error.message}
        </span>
      )}
    </div>
  );
}

const Counts = ({ topic }: { topic: Topic }) => (
  <p className="topic-counts muted small">
    {plural(topic.postCount, 'post', 'posts')} · {plural(topic.followerCount, 'follower', 'followers')}
  </p>
);

/** Every topic of the taxonomy by group, each with what it is about, its counts and a Follow button. */
export function TopicList() {
  const { me } = useSocialSelf();
  const topics = useQuery({ queryKey: LIST_KEY, queryFn: () => unwrap(api.GET('/v1/social/topics')) });
  useTitle('Topics');
  const groups = new Map<string, Topic[]>();
  for (const topic of topics.data?.data ?? []) groups.set(topic.group, [...(groups.get(topic.group) ?? []), topic]);
  return (
    <div className="page page-medium">
      <h1>Topics</h1>
      <p className="muted">
        Every post has one topic: the one its author picked, or the one its words point to. Follow a topic to see its posts in your Following feed.
      </p>
      {topics.isPending ? (
        <SkeletonRows count={4} label="Loading topics" />
      ) : topics.isError ? (
        <ErrorState error={topics.error} onRetry={() => void topics.refetch()} />
      ) : (
        [...groups].map(([group, members], index) => (
          <section key={group} className="topic-group" aria-labelledby={`topic-group-${index}`}>
            <h2 id={`topic-group-${index}`}>{group}</h2>
            <ul className="topic-cards">
              {members.map((topic) => (
                <li key={topic.slug} className="card topic-card">
                  <div className="topic-card-text">
                    <h3>
                      <Link to={`/topics/${topic.slug}`}>{topic.name}</Link>
                    </h3>
                    <p>{topic.description}</p>
                    <Counts topic={topic} />
                  </div>
                  {me && <FollowTopicButton topic={topic} />}
                </li>
              ))}
            </ul>
          </section>
        ))
      )}
    </div>
  );
}

/** One topic: what it is about, its counts and Follow, then its feed (trending first, then the newest). An alias lands on its topic. */
export default function TopicPage() {
  const { slug = '' } = useParams();
  const { me } = useSocialSelf();
  const topic = useQuery({
    queryKey: topicKey(slug),
    queryFn: () => unwrap(api.GET('/v1/social/topics/{slug}', { params: { path: { slug } } })),
  });
  const shown = topic.data?.data;
  useTitle(shown ? shown.name : topic.isError ? 'Topic not found' : null);
  if (shown && shown.slug !== slug) return <Navigate to={`/topics/${shown.slug}`} replace />;
  if (!shown)
    return (
      <LoadingOrMissing
        query={topic}
        className="page page-medium"
        loadingLabel="Loading the topic"
        missingTitle="There is no such topic."
        missingHint={
          <>
            See <Link to="/topics">all topics</Link>, or <Link to={`/search?q=${encodeURIComponent(`#${slug}`)}&tab=posts`}>search for #{slug}</Link>.
          </>
        }
      />
    );
  return (
    <div className="page page-medium">
      <p className="breadcrumb">
        <Link to="/topics">Topics</Link> / {shown.group}
      </p>
      <header className="topic-header">
        <div>
          <h1>{shown.name}</h1>
          <p>{shown.description}</p>
          <Counts topic={shown} />
        </div>
        {me && <FollowTopicButton topic={shown} />}
      </header>
      {me && <Composer me={me} into={{ key: ['feed', 'foryou', shown.slug], field: 'posts' }} topic={shown.slug} />}
      <Feed feed="foryou" topic={shown.slug} />
    </div>
  );
}
