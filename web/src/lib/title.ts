import { useEffect } from 'react';

/** Sets the tab's title to say where one is ("Notifications · Agentry"); null while it is not known yet. */
export function useTitle(title: string | null): void {
  useEffect(() => {
    if (title !== null) document.title = `${title} · Agentry`;
  }, [title]);
}
