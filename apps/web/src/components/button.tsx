import type { ButtonHTMLAttributes } from 'react';

type TVariant = 'primary' | 'secondary' | 'ghost' | 'danger';
type TSize = 'sm' | 'md';

const VARIANTS: Record<TVariant, string> = {
  primary: 'bg-indigo-600 text-white shadow-sm hover:bg-indigo-500 disabled:bg-indigo-400',
  secondary: 'bg-white text-slate-700 shadow-sm ring-1 ring-inset ring-slate-300 hover:bg-slate-50',
  ghost: 'text-slate-600 hover:bg-slate-100 hover:text-slate-900',
  danger: 'bg-red-600 text-white shadow-sm hover:bg-red-500 disabled:bg-red-400',
};

const SIZES: Record<TSize, string> = {
  sm: 'px-3 py-1.5 text-sm',
  md: 'px-4 py-2 text-sm',
};

/** Shared by buttons and by links that look like buttons. */
export function buttonStyles(variant: TVariant = 'primary', size: TSize = 'md') {
  return [
    'inline-flex items-center justify-center gap-2 rounded-lg font-medium transition-colors',
    'focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-600',
    'disabled:cursor-not-allowed',
    VARIANTS[variant],
    SIZES[size],
  ].join(' ');
}

type TButtonProps = ButtonHTMLAttributes<HTMLButtonElement> & { variant?: TVariant; size?: TSize };

export function Button({ variant, size, className, type = 'button', ...props }: TButtonProps) {
  return <button type={type} className={`${buttonStyles(variant, size)} ${className ?? ''}`} {...props} />;
}
