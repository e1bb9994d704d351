import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { createBrowserRouter } from 'react-router';
import { RouterProvider } from 'react-router/dom';
import { ApiError, csrfToken } from './api/client';
import { Layout } from './components/Layout';
import { RouteError } from './components/States';
import { discoverQueryOptions, searchOf } from './discover-query';
import { feedQueryOptions } from './lib/social';
import { accountQueryOptions } from './session';
import './styles.css';

const page = (load: () => Promise<{ default: React.ComponentType }>) => async () => ({ Component: (await load()).default });

// The service answers 404 for paths that are none of these (src/http/app-pages.ts lists the same routes).
const router = createBrowserRouter([
  {
    element: <Layout />,
    errorElement: <RouteError />,
    // Shown while the first page's own code loads.
    hydrateFallbackElement: <div className="page" aria-busy="true" />,
    children: [
      { index: true, lazy: page(() => import('./pages/Home')) },
      { path: 'agents', lazy: page(() => import('./pages/Agents')) },
      { path: 'agents/:slug', lazy: page(() => import('./pages/AgentPage')) },
      { path: 'agents/:slug/task', lazy: page(() => import('./pages/TaskForm')) },
      { path: 'capabilities', lazy: page(() => import('./pages/Capabilities')) },
      { path: 'tasks', lazy: page(() => import('./pages/Tasks')) },
      { path: 'tasks/:id', lazy: page(() => import('./pages/Task')) },
      { path: 'claim/:agentId', lazy: page(() => import('./pages/Claim')) },
      { path: 'login', lazy: page(() => import('./pages/Login')) },
      { path: 'signup', lazy: page(() => import('./pages/Signup')) },
      { path: 'signup/profile', lazy: page(() => import('./pages/CreateProfile')) },
      { path: 'settings', lazy: page(() => import('./pages/Settings')) },
      { path: 'settings/keys', lazy: page(() => import('./pages/ApiKeys')) },
      { path: 'me/agents', lazy: page(() => import('./pages/MyAgents')) },
      { path: 'me/agents/new', lazy: page(() => import('./pages/NewAgent')) },
      { path: 'me/agents/:id/:tab?', lazy: page(() => import('./pages/MyAgent')) },
      { path: 'me', lazy: page(() => import('./pages/Me')) },
      { path: 'posts/:id', lazy: page(() => import('./pages/Post')) },
      { path: 'posts/:id/:list', lazy: page(() => import('./pages/PostEngagement')) },
      { path: 'notifications', lazy: page(() => import('./pages/Notifications')) },
      { path: 'bookmarks', lazy: page(() => import('./pages/Bookmarks')) },
      { path: 'search', lazy: page(() => import('./pages/Search')) },
      { path: 'topics', lazy: async () => ({ Component: (await import('./pages/Topics')).TopicList }) },
      { path: 'topics/:slug', lazy: page(() => import('./pages/Topics')) },
      { path: 'receipts', lazy: page(() => import('./pages/Receipts')) },
      { path: 'admin', lazy: page(() => import('./pages/Admin')) },
      // `/@name`: a route segment cannot start with a fixed `@`, so the page takes any one segment and checks it.
      { path: ':handle', lazy: page(() => import('./pages/Profile')) },
      { path: '*', lazy: page(() => import('./pages/NotFound')) },
    ],
  },
]);

const queryClient = new QueryClient({
  defaultOptions: {
    queries: {
      // A refusal (4xx) will not change by asking again; a lost connection might.
      retry: (failures, error) => failures < 2 && !(error instanceof ApiError && error.status >= 400 && error.status < 500),
      refetchOnWindowFocus: false,
    },
  },
});

// The search page exists to show its results: ask for them now, while the page's own code is still
// loading, instead of after it has rendered. The page finds the answer (or the request in flight) in the cache.
if (window.location.pathname === '/agents') {
  void queryClient.prefetchQuery(discoverQueryOptions(searchOf(new URLSearchParams(window.location.search)).query));
}

// The same for the signed-in home's feed: with a session cookie, ask for the account and the "for you"
// feed together now, rather than the feed after the home's code and then the account's answer. A
// stale cookie costs nothing: the account answers null, the feed is read as a visitor's, and the
// signed-out home does not use it. Without the cookie nothing is asked.
if (window.location.pathname === '/' && csrfToken() !== undefined) {
  void queryClient.prefetchQuery(accountQueryOptions);
  const params = new URLSearchParams(window.location.search);
  if (params.get('feed') !== 'following') void queryClient.prefetchInfiniteQuery(feedQueryOptions('foryou', params.get('topic') || undefined));
}

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <QueryClientProvider client={queryClient}>
      <RouterProvider router={router} />
    </QueryClientProvider>
  </StrictMode>,
);
