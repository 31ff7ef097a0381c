import { Component, type ErrorInfo, type ReactNode } from 'react';
import { ErrorScreen } from './error-screen.tsx';

type TErrorBoundaryProps = { children: ReactNode };
type TErrorBoundaryState = { error: unknown; hasError: boolean };

// React still offers error boundaries only as class components.
export class ErrorBoundary extends Component<TErrorBoundaryProps, TErrorBoundaryState> {
  state: TErrorBoundaryState = { error: null, hasError: false };

  static getDerivedStateFromError(error: unknown): TErrorBoundaryState {
    return { error, hasError: true };
  }

  componentDidCatch(error: unknown, info: ErrorInfo) {
    console.error('Unexpected render error', error, info.componentStack);
  }

  reset = () => {
    this.setState({ error: null, hasError: false });
  };

  render() {
    if (this.state.hasError) return <ErrorScreen error={this.state.error} onRetry={this.reset} />;
    return this.props.children;
  }
}
