/**
 * What a recipient's error means, in words, for the codes the providers report (Africa's Talking's
 * failureReason and status words, SMPP receipt states, the simulator's). The code itself stays
 * beside the words; an error not listed here is shown as it came.
 */
const DELIVERY_ERROR_WORDS: Record<string, string> = {
  insufficientcredit: 'The provider account has no credit left',
  invalidlinkid: 'The provider refused the premium link id',
  userisinactive: 'The subscriber’s line is inactive',
  userinblacklist: 'The subscriber has blocked messages from this sender',
  useraccountsuspended: 'The subscriber’s account is suspended',
  notnetworksubcriber: 'The number is not on the provider’s network',
  notnetworksubscriber: 'The number is not on the provider’s network',
  usernotsubscribedtoproduct: 'The subscriber is not subscribed to this product',
  userdoesnotexist: 'The number does not exist',
  deliveryfailure: 'The network could not deliver the message',
  dndreject: 'The subscriber has Do Not Disturb on',
  absentsubscriber: 'The phone was off or out of coverage until the message expired',
  expired: 'The message expired before it could be delivered',
  rejected: 'The provider rejected the message',
  invalidphonenumber: 'The phone number is not valid',
  invalidsenderid: 'The provider refused the sender id',
  undeliv: 'The network could not deliver the message',
  rejectd: 'The network rejected the message',
  deleted: 'The network deleted the message before delivery',
  unknown: 'The network reported an unknown outcome',
};

/** The first word of an error ("UNDELIV (err 001)" -> "undeliv"), lower case. */
const codeOf = (error: string) =>
  error
    .trim()
    .split(/[\s(:]/)[0]
    .toLowerCase();

/** The error in words, or the error as it came when its code is not known. */
export function describeDeliveryError(error: string): string {
  return DELIVERY_ERROR_WORDS[codeOf(error)] ?? error;
}
