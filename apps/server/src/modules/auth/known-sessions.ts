import type { Database } from '../../db/database.ts';
import type { SessionUser } from './auth.repository.ts';

/** Sign-ins remembered per database handle at most; past this the least recently confirmed goes. */
const KNOWN_SESSIONS_REMEMBERED = 10_000;

/**
 * The user each sign-in was last found to be, so that a read can be worked on for that user while
 * the lookup that confirms it travels with the read's own statements (plugins/authenticate.ts).
 * Nothing is decided by what is remembered here alone: every answer waits for a lookup of its own.
 */
export type KnownSessions = {
  get(userId: number, sessionId: string): SessionUser | undefined;
  remember(sessionId: string, user: SessionUser): void;
  forget(sessionId: string): void;
};

const known = new WeakMap<Database, KnownSessions>();

export function knownSessionsOf(db: Database): KnownSessions {
  let sessions = known.get(db);
  if (!sessions) {
    sessions = rememberedSessions();
    known.set(db, sessions);
  }
  return sessions;
}

function rememberedSessions(): KnownSessions {
  // Insertion order is confirmation order: remember() moves a sign-in to the end.
  const users = new Map<string, SessionUser>();
  return {
    get(userId, sessionId) {
      const user = users.get(sessionId);
      return user?.id === userId ? user : undefined;
    },
    remember(sessionId, user) {
      users.delete(sessionId);
      if (users.size >= KNOWN_SESSIONS_REMEMBERED) users.delete(users.keys().next().value as string);
      users.set(sessionId, user);
    },
    forget(sessionId) {
      users.delete(sessionId);
    },
  };
}

/** Whether a lookup found the user as remembered: every field the request's actor is made of. */
export function sameSessionUser(found: SessionUser, remembered: SessionUser) {
  return (
    found.id === remembered.id &&
    found.name === remembered.name &&
    found.email === remembered.email &&
    found.role === remembered.role &&
    found.status === remembered.status &&
    found.company_id === remembered.company_id &&
    found.company_name === remembered.company_name &&
    found.company_status === remembered.company_status
  );
}
