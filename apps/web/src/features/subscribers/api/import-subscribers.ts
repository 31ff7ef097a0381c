import type { TImportSubscribersData } from '@sms/contracts/subscribers/import-subscribers';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '../../../lib/api-client.ts';
import { readAgain } from '../../../lib/query-client.ts';
import { subscribersQueryKey } from './list-subscribers.ts';

/**
 * Sends the file as multipart form data (field "file"): the browser streams it from disk and the
 * server reads it as it arrives, so neither holds the whole file and the file cap is the server's
 * IMPORT_MAX_BYTES, not the JSON form's. Through the shared client, so session refresh and errors apply
 * (a retry after a refresh sends the same form, the file read again).
 */
export function useImportSubscribers() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({
      serviceId,
      file,
      onUploadProgress,
    }: {
      serviceId: number;
      file: File;
      /** Bytes of the upload sent so far: the dialog turns them into rows read. */
      onUploadProgress?: (loaded: number, total: number) => void;
    }) => {
      const form = new FormData();
      form.set('file', file, file.name);
      return api.post<TImportSubscribersData>(`/services/${serviceId}/subscribers/import`, form, {
        onUploadProgress,
      });
    },
    onSuccess: () => {
      readAgain(queryClient, subscribersQueryKey);
      readAgain(queryClient, ['services']);
    },
  });
}
