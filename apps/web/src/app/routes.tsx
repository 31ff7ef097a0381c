import type { TRole } from '@sms/contracts/auth/roles';
import { ROUTE_ROLES } from '@sms/contracts/auth/roles';
import type { ComponentType } from 'react';
import { Navigate, type RouteObject } from 'react-router';
import { NotFound } from '../components/not-found.tsx';
import { RouteErrorScreen } from '../components/route-error-screen.tsx';
import { FullPageSpinner } from '../components/spinner.tsx';
import { ProtectedRoute } from './guards/protected-route.tsx';
import { RootLayout } from './root-layout.tsx';

type TPageModule = { default: ComponentType };

/** A guarded page whose code loads on first visit, so each feature stays out of the start-up bundle. */
function lazyPage(
  path: string,
  roles: readonly TRole[],
  load: () => Promise<TPageModule>,
  deniedMessage?: string,
): RouteObject {
  return {
    element: <ProtectedRoute allowedRoles={roles} deniedMessage={deniedMessage} />,
    children: [{ path, lazy: { Component: async () => (await load()).default } }],
  };
}

/** Fresh route objects per router: the router fills lazy routes in place, so two routers must not share them. */
export function createRoutes(): RouteObject[] {
  return [
    {
      element: <RootLayout />,
      errorElement: <RouteErrorScreen />,
      hydrateFallbackElement: <FullPageSpinner />,
      children: [
        {
          path: '/',
          // The spinner stays up while the dashboard's code loads.
          element: (
            <>
              <FullPageSpinner />
              <Navigate to="/dashboard" replace />
            </>
          ),
        },
        {
          path: '/login',
          lazy: { Component: async () => (await import('../features/auth/pages/login-page.tsx')).default },
        },
        {
          element: <ProtectedRoute />,
          children: [
            {
              // The signed-in shell (sidebar, top bar, search) loads with the first screen that needs it.
              lazy: { Component: async () => (await import('./layout/app-layout.tsx')).AppLayout },
              children: [
                lazyPage(
                  '/dashboard',
                  ROUTE_ROLES.dashboard,
                  () => import('../features/dashboard/pages/dashboard-page.tsx'),
                ),
                lazyPage(
                  '/services',
                  ROUTE_ROLES.services,
                  () => import('../features/services/pages/services-page.tsx'),
                ),
                lazyPage(
                  '/subscribers',
                  ROUTE_ROLES.subscribers,
                  () => import('../features/subscribers/pages/subscribers-page.tsx'),
                ),
                lazyPage(
                  '/messages',
                  ROUTE_ROLES.messages,
                  () => import('../features/messages/pages/messages-page.tsx'),
                ),
                lazyPage(
                  '/messages/templates',
                  ROUTE_ROLES.messages,
                  () => import('../features/templates/pages/templates-page.tsx'),
                ),
                lazyPage(
                  '/reports',
                  ROUTE_ROLES.reports,
                  () => import('../features/reports/pages/reports-page.tsx'),
                ),
                lazyPage(
                  '/settings/api-keys',
                  ['company_admin'],
                  () => import('../features/api-keys/pages/api-keys-page.tsx'),
                  'Only company administrators manage API keys.',
                ),
                lazyPage(
                  '/settings/webhooks',
                  ['company_admin'],
                  () => import('../features/webhooks/pages/webhooks-page.tsx'),
                  'Only company administrators manage webhook endpoints.',
                ),
                lazyPage(
                  '/admin',
                  ROUTE_ROLES.admin,
                  () => import('../features/admin/pages/admin-page.tsx'),
                  'System administrator access required.',
                ),
                lazyPage(
                  '/admin/audit',
                  ROUTE_ROLES.audit,
                  () => import('../features/audit/pages/audit-page.tsx'),
                  "You don't have permission to view audit logs.",
                ),
              ],
            },
          ],
        },
        { path: '*', element: <NotFound /> },
      ],
    },
  ];
}
