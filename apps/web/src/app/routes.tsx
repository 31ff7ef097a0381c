import { ROUTE_ROLES } from '@sms/contracts/auth/roles';
import { Navigate, type RouteObject } from 'react-router';
import { NotFound } from '../components/not-found.tsx';
import { RouteErrorScreen } from '../components/route-error-screen.tsx';
import AdminPage from '../features/admin/pages/admin-page.tsx';
import AuditPage from '../features/audit/pages/audit-page.tsx';
import LoginPage from '../features/auth/pages/login-page.tsx';
import DashboardPage from '../features/dashboard/pages/dashboard-page.tsx';
import MessagesPage from '../features/messages/pages/messages-page.tsx';
import ReportsPage from '../features/reports/pages/reports-page.tsx';
import ServicesPage from '../features/services/pages/services-page.tsx';
import SubscribersPage from '../features/subscribers/pages/subscribers-page.tsx';
import { ProtectedRoute } from './guards/protected-route.tsx';
import { AppLayout } from './layout/app-layout.tsx';
import { RootLayout } from './root-layout.tsx';

export const routes: RouteObject[] = [
  {
    element: <RootLayout />,
    errorElement: <RouteErrorScreen />,
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
              {
                path: '/services',
                element: (
                  <ProtectedRoute allowedRoles={ROUTE_ROLES.services}>
                    <ServicesPage />
                  </ProtectedRoute>
                ),
              },
              {
                path: '/subscribers',
                element: (
                  <ProtectedRoute allowedRoles={ROUTE_ROLES.subscribers}>
                    <SubscribersPage />
                  </ProtectedRoute>
                ),
              },
              {
                path: '/messages',
                element: (
                  <ProtectedRoute allowedRoles={ROUTE_ROLES.messages}>
                    <MessagesPage />
                  </ProtectedRoute>
                ),
              },
              {
                path: '/reports',
                element: (
                  <ProtectedRoute allowedRoles={ROUTE_ROLES.reports}>
                    <ReportsPage />
                  </ProtectedRoute>
                ),
              },
              {
                path: '/admin',
                element: (
                  <ProtectedRoute allowedRoles={ROUTE_ROLES.admin}>
                    <AdminPage />
                  </ProtectedRoute>
                ),
              },
              {
                path: '/admin/audit',
                element: (
                  <ProtectedRoute allowedRoles={ROUTE_ROLES.audit}>
                    <AuditPage />
                  </ProtectedRoute>
                ),
              },
            ],
          },
        ],
      },
      { path: '*', element: <NotFound /> },
    ],
  },
];
