import type { TRole } from '@sms/contracts/auth/roles';
import { ROUTE_ROLES } from '@sms/contracts/auth/roles';
import type { ComponentType } from 'react';
import { Navigate, type RouteObject } from 'react-router';
import { NotFound } from '../components/not-found.tsx';
import { RouteErrorScreen } from '../components/route-error-screen.tsx';
import { FullPageSpinner } from '../components/spinner.tsx';
import LoginPage from '../features/auth/pages/login-page.tsx';
import DashboardPage from '../features/dashboard/pages/dashboard-page.tsx';
import { ProtectedRoute } from './guards/protected-route.tsx';
import { AppLayout } from './layout/app-layout.tsx';
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
        { path: '/', element: <Navigate to="/dashboard" replace /> },
        { path: '/login', element: <LoginPage /> },
        {
          element: <ProtectedRoute />,
          children: [
            {
              element: <AppLayout />,
              children: [
                {
                  path: '/dashboard',
                  element: (
                    <ProtectedRoute allowedRoles={ROUTE_ROLES.dashboard}>
                      <DashboardPage />
                    </ProtectedRoute>
                  ),
                },
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
                  '/reports',
                  ROUTE_ROLES.reports,
                  () => import('../features/reports/pages/reports-page.tsx'),
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
