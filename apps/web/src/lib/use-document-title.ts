import { PRODUCT_NAME } from '@sms/contracts/common/product';
import { useEffect } from 'react';

/** The browser tab (and history, bookmarks) names the page: "Message Logs · SMS Console". */
export function useDocumentTitle(pageName: string) {
  useEffect(() => {
    document.title = `${pageName} · ${PRODUCT_NAME}`;
  }, [pageName]);
}
