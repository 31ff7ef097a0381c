import { Outlet } from 'react-router';
import { AuthProvider } from '../features/auth/components/auth-provider.tsx';

/** The router's root element: providers that need the router (navigation) live here. */
export function RootLayout() {
  return (
    <AuthProvider>
      <Outlet />
    </AuthProvider>
  );
}
