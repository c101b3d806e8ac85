/** The Requests screen's words. */
export const requests = {
  'requests.title': 'Requests',
  'requests.lead': 'Visitors waiting for your approval to open a link.',
  'requests.emptyTitle': 'Nobody is waiting',
  'requests.emptyText':
    'When a link asks you to approve each visitor, their requests appear here, and the number beside Requests in the menu tells you one is waiting.',
  'requests.table': 'Access requests waiting for an answer',
  'requests.visitor': 'Visitor',
  'requests.link': 'Link',
  'requests.when': 'Asked',
  'requests.answer': 'Answer',
  'requests.approve': 'Approve',
  'requests.deny': 'Deny',
  'requests.approveLabel': 'Approve {email} for {link}',
  'requests.denyLabel': 'Deny {email} for {link}',
  'requests.approved': '{email} may now open {link}.',
  'requests.denied': '{email} was turned away from {link}.',
  'requests.from': 'from {ip}',
  'requests.unverified': 'Not verified',
  'requests.unverifiedHint': 'The visitor typed this address; no code sent to it was entered, so it may not be theirs.',
} as const;
