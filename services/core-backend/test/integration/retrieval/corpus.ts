/**
 * A small retrieval corpus made for the evaluation: passages of a few "documents", and
 * questions whose answer sits in one known passage. Some questions reuse the passage's words,
 * others ask with other forms of them (plural, tense, derived words: "approve" for "approves",
 * "patches" for "patching"), which a BM25 over the standard analyzer (no stemming) matches only
 * in part.
 */
export interface Fact {
  document: string;
  text: string;
  question: string;
}

export const FACTS: Fact[] = [
  {
    document: 'finance',
    text: 'The quarterly invoicing run starts on the third business day and the controller approves each batch before payment.',
    question: 'who approves the invoicing batch',
  },
  {
    document: 'finance',
    text: 'Travel expenses above five hundred euros need a receipt and the signature of a department head.',
    question: 'what do travel expenses above five hundred euros need',
  },
  {
    document: 'finance',
    text: 'Refunds to customers are paid within fourteen days through the original payment method.',
    question: 'how are customer refunds paid',
  },
  {
    document: 'finance',
    text: 'The annual budget is frozen in November after the board reviews the forecasts.',
    question: 'when is the budget frozen',
  },
  {
    document: 'hr',
    text: 'New employees receive their laptop on the first morning from the service desk.',
    question: 'when does a new employee get a laptop',
  },
  {
    document: 'hr',
    text: 'Parental leave lasts sixteen weeks and may be split into two periods.',
    question: 'how long is parental leave',
  },
  {
    document: 'hr',
    text: 'Performance reviews happen twice a year, in March and in September.',
    question: 'when are the performance reviews',
  },
  {
    document: 'hr',
    text: 'Remote working is allowed three days per week after the probation period.',
    question: 'remote work days allowed weekly',
  },
  {
    document: 'it',
    text: 'Passwords expire after ninety days and must contain at least twelve characters.',
    question: 'when does a password expire',
  },
  {
    document: 'it',
    text: 'The VPN gateway is restarted every Sunday at two in the night for patching.',
    question: 'when is the gateway restarted for patches',
  },
  {
    document: 'it',
    text: 'Backups of the file servers are copied to the second datacenter every night.',
    question: 'where are file server backups copied',
  },
  {
    document: 'it',
    text: 'Printers on every floor are managed by the facilities team, not by IT support.',
    question: 'who manages the printer on each floor',
  },
  {
    document: 'sales',
    text: 'Discounts above twenty percent require approval from the regional sales director.',
    question: 'who must approve a discount above twenty percent',
  },
  {
    document: 'sales',
    text: 'Leads from the website are assigned to account managers by postal code.',
    question: 'how are website leads assigned',
  },
  {
    document: 'sales',
    text: 'The partner programme pays a commission of eight percent on the first year of revenue.',
    question: 'what commission does the partner programme pay',
  },
  {
    document: 'sales',
    text: 'Trade fair booths are booked one year ahead by the marketing office.',
    question: 'who books the booth for trade fairs',
  },
  {
    document: 'safety',
    text: 'Fire drills take place every spring and every employee leaves through the nearest exit.',
    question: 'when is the fire drill',
  },
  {
    document: 'safety',
    text: 'Visitors must wear a badge and be accompanied by their host at all times.',
    question: 'what must a visitor wear',
  },
  {
    document: 'safety',
    text: 'Chemical spills are reported to the safety officer and the area is closed immediately.',
    question: 'who is a chemical spill reported to',
  },
  {
    document: 'safety',
    text: 'First aid kits are checked monthly by the appointed first aiders.',
    question: 'how often are the first aid kits checked',
  },
];

/**
 * Passages that share the vocabulary of the facts but answer none of the questions: 150 of them,
 * made from templates over the same nouns and verbs, so the answer has to win among many
 * near-misses.
 */
const SUBJECTS = [
  'The finance team',
  'Every department head',
  'The service desk',
  'The board',
  'The safety officer',
  'The marketing office',
  'Each account manager',
  'The facilities team',
  'The controller',
  'The regional director',
];
const ACTIONS = [
  'reviews the travel budget',
  'publishes a report on refunds',
  'checks the batch of receipts',
  'plans the fire drill schedule',
  'discusses leave requests',
  'updates the laptop inventory',
  'approves the printer order',
  'books the meeting rooms',
  'collects the forecasts',
  'sends a reminder about passwords',
  'audits the backups',
  'counts the visitors badges',
  'answers questions about the partner programme',
  'trains the first aiders',
];
const TIMES = [
  'every Monday',
  'once a quarter',
  'at the end of the year',
  'after each inspection',
  'before the holidays',
];

export const DISTRACTORS: Array<{ document: string; text: string }> = Array.from(
  { length: 150 },
  (_, i) => ({
    document: ['finance', 'hr', 'it', 'sales', 'safety'][i % 5]!,
    text: `${SUBJECTS[i % SUBJECTS.length]} ${ACTIONS[(i * 7) % ACTIONS.length]} ${TIMES[(i * 3) % TIMES.length]}.`,
  }),
);
