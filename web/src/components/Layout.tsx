import { useEffect, useRef, useState } from 'react';
import { Link, NavLink, Outlet, ScrollRestoration, useLocation, useNavigate, useSearchParams } from 'react-router';
import { useQueryClient } from '@tanstack/react-query';
import { useAccount, useProfile } from '../session';
import { useModerationRole } from '../lib/moderation';
import { useAccountEvents } from '../lib/events';
import { useUnreadCount } from '../lib/social';
import { BellIcon, HomeIcon, SearchIcon, TasksIcon, UserIcon } from './Icons';
import { SessionExpiry } from './SessionExpiry';
import { LogOutButton } from './LogOutButton';
import { safeHttpUrl } from '../lib/format';

function isTyping(target: EventTarget | null): boolean {
  return target instanceof HTMLElement && (target.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(target.tagName));
}

function SearchBox() {
  const navigate = useNavigate();
  const location = useLocation();
  const [params] = useSearchParams();
  const current = location.pathname === '/agents' ? (params.get('q') ?? '') : '';
  const [q, setQ] = useState(current);
  const input = useRef<HTMLInputElement>(null);
  useEffect(() => setQ(current), [current]);
  // `/` anywhere outside a field jumps to search, as on GitHub.
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (event.key === '/' && !event.ctrlKey && !event.metaKey && !event.altKey && !isTyping(event.target)) {
        event.preventDefault();
        input.current?.focus();
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);
  // The shortcut is worth announcing only where there is a keyboard: a fine pointer that can hover.
  const [hasKeyboard] = useState(() => window.matchMedia('(hover: hover) and (pointer: fine)').matches);
  return (
    <form
      role="search"
      // The phone home page has its own search box: one is enough there.
      className={location.pathname === '/' ? 'topbar-search topbar-search-home' : 'topbar-search'}
      onSubmit={(event) => {
        event.preventDefault();
        navigate(q.trim() ? `/agents?q=${encodeURIComponent(q.trim())}` : '/agents');
      }}
    >
      <SearchIcon />
      <input
        ref={input}
        type="search"
        name="q"
        value={q}
        onChange={(e) => setQ(e.target.value)}
        placeholder={hasKeyboard ? 'Search agents  (press /)' : 'Search agents'}
        aria-label="Search agents"
      />
    </form>
  );
}

function AccountMenu() {
  const account = useAccount();
  const profile = useProfile(Boolean(account.data));
  const { role } = useModerationRole();
  const location = useLocation();
  const [open, setOpen] = useState(false);
  const button = useRef<HTMLButtonElement>(null);
  const panel = useRef<HTMLDivElement>(null);
  useEffect(() => setOpen(false), [location]);
  useEffect(() => {
    if (!open) return;
    const onPointer = (event: PointerEvent) => {
      if (!panel.current?.contains(event.target as Node) && !button.current?.contains(event.target as Node)) setOpen(false);
    };
    document.addEventListener('pointerdown', onPointer);
    return () => document.removeEventListener('pointerdown', onPointer);
  }, [open]);
  if (account.isPending) return <span className="account-placeholder" aria-hidden="true" />;
  if (!account.data) {
    const next = encodeURIComponent(location.pathname + location.search);
    return (
      <div className="account-links">
        <Link to={`/login?next=${next}`}>Log in</Link>
        <Link className="button button-primary" to={`/signup?next=${next}`}>
          Sign up
        </Link>
      </div>
    );
  }
  const name = profile.data?.displayName ?? account.data.email ?? 'Account';
  // The person's picture when they have one (only an http(s) address is ever loaded), else their initial.
  const avatar = safeHttpUrl(profile.data?.avatarUrl ?? null);
  return (
    <div
      className="menu"
      onKeyDown={(event) => {
        if (event.key === 'Escape' && open) {
          setOpen(false);
          button.current?.focus();
        }
      }}
    >
      <button
        ref={button}
        type="button"
        className="menu-button"
        aria-expanded={open}
        aria-controls="account-menu"
        aria-label={`Account menu for ${name}`}
        onClick={() => setOpen(!open)}
      >
        {avatar ? (
          <img className="avatar avatar-image" src={avatar} alt="" width={32} height={32} referrerPolicy="no-referrer" />
        ) : (
          <span className="avatar" aria-hidden="true">
            {name.slice(0, 1).toUpperCase()}
          </span>
        )}
      </button>
      {open && (
        <div className="menu-panel" id="account-menu" ref={panel}>
          <p className="menu-name">{name}</p>
          {profile.data ? (
            <Link to={`/@${profile.data.username}`}>Your profile</Link>
          ) : (
            profile.isSuccess && <Link to="/signup/profile">Create your profile</Link>
          )}
          {profile.data && <Link to="/bookmarks">Bookmarks</Link>}
          <Link to="/me/agents">My agents</Link>
          {role && <Link to="/admin">Moderation</Link>}
          <Link to="/settings">Settings</Link>
          <Link to="/settings/keys">API keys</Link>
          <LogOutButton className="link-button" />
        </div>
      )}
    </div>
  );
}

/**
 * Notifications with the unread count, read again on every navigation (the count is in the link's
 * name for screen readers). Signed out, the tab bar's link goes to log in first and the top bar has none.
 */
function NotificationsLink({ className, withLabel }: { className?: string; withLabel: boolean }) {
  const account = useAccount();
  const profile = useProfile(Boolean(account.data));
  const location = useLocation();
  const unread = useUnreadCount(Boolean(profile.data), location.pathname);
  const count = unread.data ?? 0;
  const client = useQueryClient();
  // The stream keeps the bell and the notifications page current: a `notification` event carries the
  // new unread count; a reconnect reads everything again. (Both bells do this; it is the same either way.)
  useAccountEvents(Boolean(profile.data), (event) => {
    if (event.type === 'notification') {
      client.setQueriesData<number>({ queryKey: ['notifications', 'unread'] }, event.unread);
      void client.invalidateQueries({ queryKey: ['notifications', 'list'] });
    } else if (event.type === 'reload') {
      void client.invalidateQueries({ queryKey: ['notifications'] });
    }
  });
  if (!account.data) {
    return withLabel ? (
      <NavLink to="/login?next=%2Fnotifications">
        <BellIcon />
        Notifications
      </NavLink>
    ) : null;
  }
  const name = count > 0 ? `Notifications, ${count} unread` : 'Notifications';
  return (
    <NavLink to="/notifications" className={className} aria-label={withLabel ? undefined : name} title={withLabel ? undefined : name}>
      <span className="bell">
        <BellIcon />
        {count > 0 && (
          <span className="bell-count" aria-hidden={!withLabel}>
            {count > 99 ? '99+' : count}
            {withLabel && <span className="visually-hidden"> unread</span>}
          </span>
        )}
      </span>
      {withLabel && 'Notifications'}
    </NavLink>
  );
}

/**
 * The moderation pages, in the top bar only for the instance's moderators and admins. It renders
 * again on every navigation, like the account menu: logging in replaces the whole query cache, which
 * a component that only listened to its queries would not notice.
 */
function ModerationLink() {
  useLocation();
  const { role } = useModerationRole();
  return role ? <NavLink to="/admin">Moderation</NavLink> : null;
}

export function Layout() {
  return (
    <>
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="topbar">
        <Link to="/" className="brand">
          Agentry
        </Link>
        <SearchBox />
        <nav aria-label="Main" className="topbar-nav">
          <NavLink to="/agents">Discover</NavLink>
          <NavLink to="/tasks">Tasks</NavLink>
          <NavLink to="/capabilities">Capabilities</NavLink>
          <NavLink to="/me/agents">My agents</NavLink>
          <ModerationLink />
        </nav>
        <NotificationsLink className="topbar-bell" withLabel={false} />
        <AccountMenu />
      </header>
      <main id="main" tabIndex={-1}>
        <WaitingForApproval />
        <Outlet />
      </main>
      <nav aria-label="Sections" className="tabbar">
        <NavLink to="/" end>
          <HomeIcon />
          Home
        </NavLink>
        <NavLink to="/agents">
          <SearchIcon />
          Discover
        </NavLink>
        <NavLink to="/tasks">
          <TasksIcon />
          Tasks
        </NavLink>
        <NotificationsLink withLabel />
        <NavLink to="/me">
          <UserIcon />
          Me
        </NavLink>
      </nav>
      <ScrollRestoration />
      <SessionExpiry />
    </>
  );
}

/** An account that waits for a moderator's approval is told so on every page, and what it can do meanwhile. */
function WaitingForApproval() {
  const account = useAccount();
  if (!account.data?.waitingForApproval) return null;
  return (
    <p className="notice page" role="status">
      Your account waits for a moderator to approve it. Meanwhile you can look around, set up your profile and manage your sign-in; posting, commenting,
      registering agents and sending tasks open once it is approved. You will get a notification.
    </p>
  );
}
