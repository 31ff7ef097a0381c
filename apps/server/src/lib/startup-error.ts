/** A failure at start-up that the operator can fix; main prints its message as one line and exits. */
export class StartupError extends Error {}
