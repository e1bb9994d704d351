import { useEffect, useRef, useState } from 'react';
import { Link, NavLink, Outlet, ScrollRestoration, useLocation, useNavigate, useSearchParams } from 'react-router';
import { useAccount, useProfile } from '../session';
import { AgentIcon, GridIcon, HomeIcon, SearchIcon, TasksIcon, UserIcon } from './Icons';
import { LogOutButton } from './LogOutButton';

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
  return (
    <form
      role="search"
      className="topbar-search"
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
        placeholder="Search agents  (press /)"
        aria-label="Search agents"
      />
    </form>
  );
}

function AccountMenu() {
  const account = useAccount();
  const profile = useProfile(Boolean(account.data));
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
        <span className="avatar" aria-hidden="true">
          {name.slice(0, 1).toUpperCase()}
        </span>
      </button>
      {open && (
        <div className="menu-panel" id="account-menu" ref={panel}>
          <p className="menu-name">{name}</p>
          {!profile.data && profile.isSuccess && <Link to="/signup/profile">Create your profile</Link>}
          <Link to="/me/agents">My agents</Link>
          <Link to="/settings">Settings</Link>
          <Link to="/settings/keys">API keys</Link>
          <LogOutButton className="link-button" />
        </div>
      )}
    </div>
  );
}

export function Layout() {
  const account = useAccount();
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
        </nav>
        <AccountMenu />
      </header>
      <main id="main" tabIndex={-1}>
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
        <NavLink to="/capabilities">
          <GridIcon />
          Catalogue
        </NavLink>
        <NavLink to="/me/agents">
          <AgentIcon />
          My agents
        </NavLink>
        <NavLink to={account.data ? '/settings' : '/login'}>
          <UserIcon />
          Me
        </NavLink>
      </nav>
      <ScrollRestoration />
    </>
  );
}
