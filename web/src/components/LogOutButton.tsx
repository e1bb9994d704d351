import { useNavigate } from 'react-router';
import { useSignOut } from '../session';

/** Ends the session (on the server and its cookies) and goes home, also when the server cannot be reached. */
export function LogOutButton({ className }: { className: string }) {
  const signOut = useSignOut();
  const navigate = useNavigate();
  return (
    <button
      type="button"
      className={className}
      onClick={async () => {
        await signOut().catch(() => undefined);
        navigate('/');
      }}
    >
      Log out
    </button>
  );
}
