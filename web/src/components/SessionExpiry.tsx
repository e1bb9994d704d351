import { useQueryClient } from '@tanstack/react-query';
import { useEffect } from 'react';
import { useLocation, useNavigate } from 'react-router';
import { SESSION_EXPIRED } from '../api/client';
import { markSessionEnded, restoreFormDraft, saveFormDraft } from '../lib/form-drafts';

/**
 * When the API answers 401 (the session expired or was revoked): keep what the person typed, show
 * them signed out, and take them to log in, coming back here afterwards with their typing restored.
 */
export function SessionExpiry() {
  const navigate = useNavigate();
  const location = useLocation();
  const client = useQueryClient();
  const here = location.pathname + location.search;

  useEffect(() => {
    const expired = () => {
      // Read now, not from the render: several 401s may arrive while the first one's navigation is under way.
      const { pathname, search } = window.location;
      if (pathname === '/login') return;
      saveFormDraft(pathname + search);
      markSessionEnded();
      navigate(`/login?next=${encodeURIComponent(pathname + search)}`, { replace: true });
      client.setQueryData(['account'], null);
      client.removeQueries({ predicate: (query) => query.queryKey[0] !== 'account' });
    };
    window.addEventListener(SESSION_EXPIRED, expired);
    return () => window.removeEventListener(SESSION_EXPIRED, expired);
  }, [client, navigate]);

  useEffect(() => restoreFormDraft(here), [here]);
  return null;
}
