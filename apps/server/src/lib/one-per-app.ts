import type { AppDeps } from '../app-deps.ts';

/**
 * State an app keeps for itself, made on its first use: two apps in one process (a test's, or one
 * per database) never answer from each other's.
 */
export function onePerApp<T>(create: (deps: AppDeps) => T) {
  const byApp = new WeakMap<AppDeps, T>();
  return (deps: AppDeps): T => {
    let state = byApp.get(deps);
    if (state === undefined) {
      state = create(deps);
      byApp.set(deps, state);
    }
    return state;
  };
}
