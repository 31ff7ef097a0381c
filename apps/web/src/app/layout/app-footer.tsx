import { PRODUCT_NAME } from '@sms/contracts/common/product';

export function AppFooter() {
  return (
    <footer className="border-t border-slate-200 px-4 py-4 text-center text-xs text-slate-500 sm:px-6 lg:px-8">
      {`© ${new Date().getFullYear()} ${PRODUCT_NAME}. All rights reserved.`}
    </footer>
  );
}
