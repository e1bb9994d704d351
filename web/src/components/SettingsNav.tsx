import { NavLink } from 'react-router';

/** The settings pages' sub-navigation; the current page is marked (aria-current) by the router. */
export function SettingsNav() {
  return (
    <nav aria-label="Settings sections" className="tabs">
      <NavLink to="/settings" end className={({ isActive }) => (isActive ? 'active' : '')}>
        Account
      </NavLink>
      <NavLink to="/settings/keys" end className={({ isActive }) => (isActive ? 'active' : '')}>
        API keys
      </NavLink>
    </nav>
  );
}
