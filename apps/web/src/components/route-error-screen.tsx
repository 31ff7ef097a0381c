import { useRevalidator, useRouteError } from 'react-router';
import { ErrorScreen } from './error-screen.tsx';

/** The router's error element: catches what escapes the page-level boundary (layout, providers). */
export function RouteErrorScreen() {
  const error = useRouteError();
  const revalidator = useRevalidator();
  // A revalidation makes the router's boundary render the route again.
  return <ErrorScreen error={error} onRetry={() => void revalidator.revalidate()} />;
}
