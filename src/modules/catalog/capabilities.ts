/**
 * Catalogue of standardized agent capabilities (served by GET /v1/capabilities).
 *
 * Used for:
 *  - search: aliases are the other words people use for a capability, so a query such as
 *    "summarise my inbox" can find the "email-digest" capability;
 *  - task routing: a task asking for "text-summarization" also matches an agent tagged
 *    with an alias such as "summarize" (see expandCapabilityTerms).
 *
 * Invariants (enforced by test/unit/catalog.test.ts):
 *  - category slugs match [a-z0-9-]{1,40}; capability slugs match [a-z0-9-]{1,60};
 *  - slugs and names are unique; every capability's category exists;
 *  - every category has at least 3 capabilities;
 *  - aliases are lowercase, 3-8 per capability, and after normalization no alias collides
 *    with another capability's slug, name or aliases.
 */

export interface CapabilityCategory {
  slug: string;
  name: string;
}

export interface Capability {
  slug: string;
  name: string;
  category: string;
  description: string;
  aliases: string[];
}

/** The category slugs that agents themselves can be filed under. */
export const agentCategorySlugs: string[] = [
  'coding',
  'data',
  'devops',
  'finance',
  'health',
  'legal',
  'marketing',
  'productivity',
  'research',
  'security',
  'support',
  'other',
];

export const capabilityCategories: CapabilityCategory[] = [
  { slug: 'coding', name: 'Coding & Software Development' },
  { slug: 'data', name: 'Data & Databases' },
  { slug: 'devops', name: 'DevOps & Infrastructure' },
  { slug: 'finance', name: 'Finance & Accounting' },
  { slug: 'health', name: 'Health & Wellness' },
  { slug: 'legal', name: 'Legal & Compliance' },
  { slug: 'marketing', name: 'Marketing' },
  { slug: 'productivity', name: 'Productivity' },
  { slug: 'research', name: 'Research' },
  { slug: 'security', name: 'Security' },
  { slug: 'support', name: 'Customer Support' },
  { slug: 'other', name: 'Other' },
  { slug: 'communication', name: 'Communication & Messaging' },
  { slug: 'writing', name: 'Writing & Content' },
  { slug: 'media', name: 'Design & Media' },
  { slug: 'language', name: 'Language, Speech & Translation' },
  { slug: 'education', name: 'Education & Learning' },
  { slug: 'sales', name: 'Sales & CRM' },
  { slug: 'hr', name: 'HR & Recruiting' },
  { slug: 'ecommerce', name: 'E-commerce & Retail' },
  { slug: 'travel', name: 'Travel & Hospitality' },
  { slug: 'analytics', name: 'Analytics & Business Intelligence' },
  { slug: 'ai-ml', name: 'AI & Machine Learning' },
  { slug: 'automation', name: 'Automation & Integration' },
  { slug: 'documents', name: 'Documents & Files' },
  { slug: 'scheduling', name: 'Scheduling & Calendar' },
  { slug: 'iot', name: 'IoT & Smart Devices' },
  { slug: 'gaming', name: 'Gaming & Entertainment' },
  { slug: 'logistics', name: 'Logistics & Supply Chain' },
];

export const capabilities: Capability[] = [
  // ── coding ────────────────────────────────────────────────────────────────
  {
    slug: 'code-generation',
    name: 'Code Generation',
    category: 'coding',
    description: 'Writes new source code from a natural-language specification in the requested language and framework.',
    aliases: ['write code', 'generate code', 'codegen', 'coding assistant', 'programming', 'code completion', 'autocomplete'],
  },
  {
    slug: 'code-review',
    name: 'Code Review',
    category: 'coding',
    description: 'Reviews code changes or pull requests and points out bugs, style problems and risky patterns.',
    aliases: ['review code', 'pr review', 'pull request review', 'review pull request', 'code critique', 'linting'],
  },
  {
    slug: 'debugging',
    name: 'Debugging',
    category: 'coding',
    description: 'Diagnoses failing code from errors, stack traces or symptoms and proposes a fix.',
    aliases: ['debug', 'fix bug', 'bug fixing', 'bugfix', 'troubleshoot code', 'stack trace analysis', 'error diagnosis'],
  },
  {
    slug: 'code-refactoring',
    name: 'Code Refactoring',
    category: 'coding',
    description: 'Restructures existing code to improve readability and maintainability without changing its behaviour.',
    aliases: ['refactor', 'refactoring', 'clean up code', 'code cleanup', 'legacy code migration', 'code modernization', 'code modernisation'],
  },
  {
    slug: 'test-generation',
    name: 'Test Generation',
    category: 'coding',
    description: 'Writes unit, integration or end-to-end tests for existing code to raise coverage and catch regressions.',
    aliases: ['write tests', 'unit tests', 'test writing', 'test coverage', 'generate tests', 'tdd'],
  },
  {
    slug: 'code-documentation',
    name: 'Code Documentation',
    category: 'coding',
    description: 'Generates docstrings, inline comments, API references and README files for a codebase.',
    aliases: ['docstrings', 'code comments', 'api docs', 'readme', 'document code', 'api reference'],
  },
  {
    slug: 'code-explanation',
    name: 'Code Explanation',
    category: 'coding',
    description: 'Explains what a piece of code or an entire codebase does in plain language.',
    aliases: ['explain code', 'code walkthrough', 'understand codebase', 'what does this code do', 'codebase onboarding'],
  },

  // ── data ──────────────────────────────────────────────────────────────────
  {
    slug: 'data-extraction',
    name: 'Data Extraction',
    category: 'data',
    description: 'Pulls structured fields out of unstructured text, emails or web pages into a defined schema.',
    aliases: ['extract data', 'information extraction', 'structured extraction', 'extract fields', 'data capture', 'parse text'],
  },
  {
    slug: 'data-cleaning',
    name: 'Data Cleaning',
    category: 'data',
    description: 'Detects and fixes duplicates, missing values, inconsistent formats and invalid records in a dataset.',
    aliases: ['data cleansing', 'clean data', 'deduplication', 'dedupe', 'data wrangling', 'data quality'],
  },
  {
    slug: 'data-transformation',
    name: 'Data Transformation',
    category: 'data',
    description: 'Builds and runs pipelines that extract, reshape and load data between formats and systems.',
    aliases: ['etl', 'elt', 'data pipeline', 'data conversion', 'data mapping', 'reshape data'],
  },
  {
    slug: 'sql-generation',
    name: 'SQL Generation',
    category: 'data',
    description: 'Translates natural-language questions into SQL queries against a given database schema.',
    aliases: ['text to sql', 'nl2sql', 'write sql', 'sql query', 'natural language query', 'query builder'],
  },
  {
    slug: 'database-management',
    name: 'Database Management',
    category: 'data',
    description: 'Designs schemas, plans migrations and tunes indexes and queries for relational or NoSQL databases.',
    aliases: ['dba', 'database admin', 'schema design', 'database migration', 'query optimization', 'query optimisation', 'database tuning'],
  },
  {
    slug: 'web-scraping',
    name: 'Web Scraping',
    category: 'data',
    description: 'Crawls websites and collects page content or specific data points at scale.',
    aliases: ['scrape', 'scraping', 'crawler', 'web crawling', 'crawl website', 'harvest web data'],
  },

  // ── devops ────────────────────────────────────────────────────────────────
  {
    slug: 'ci-cd-automation',
    name: 'CI/CD Automation',
    category: 'devops',
    description: 'Sets up and maintains build, test and deployment pipelines that ship code automatically.',
    aliases: ['ci/cd', 'continuous integration', 'continuous deployment', 'continuous delivery', 'build pipeline', 'github actions', 'deployment pipeline'],
  },
  {
    slug: 'infrastructure-as-code',
    name: 'Infrastructure as Code',
    category: 'devops',
    description: 'Writes and applies declarative configuration that provisions cloud and on-premises infrastructure.',
    aliases: ['iac', 'terraform', 'pulumi', 'cloud provisioning', 'provision infrastructure', 'cloudformation'],
  },
  {
    slug: 'monitoring-alerting',
    name: 'Monitoring & Alerting',
    category: 'devops',
    description: 'Watches metrics, traces and uptime checks for services and raises alerts when thresholds are crossed.',
    aliases: ['monitoring', 'alerting', 'observability', 'uptime monitoring', 'metrics', 'apm'],
  },
  {
    slug: 'incident-management',
    name: 'Incident Management',
    category: 'devops',
    description: 'Coordinates the response to production outages, from paging responders to writing the postmortem.',
    aliases: ['on call', 'outage response', 'postmortem', 'post mortem', 'sre', 'paging', 'incident response'],
  },
  {
    slug: 'log-analysis',
    name: 'Log Analysis',
    category: 'devops',
    description: 'Searches, parses and correlates application and system logs to find errors and their root causes.',
    aliases: ['logs', 'log parsing', 'log search', 'log triage', 'root cause analysis', 'rca'],
  },
  {
    slug: 'cloud-cost-optimization',
    name: 'Cloud Cost Optimization',
    category: 'devops',
    description: 'Analyses cloud bills and usage to recommend rightsizing, reservations and waste removal.',
    aliases: ['finops', 'cloud costs', 'aws bill', 'cloud spend', 'cost optimisation', 'rightsizing'],
  },
  {
    slug: 'container-orchestration',
    name: 'Container Orchestration',
    category: 'devops',
    description: 'Builds container images and manages their deployment, scaling and health on clusters.',
    aliases: ['kubernetes', 'k8s', 'docker', 'containers', 'helm', 'containerization', 'containerisation'],
  },

  // ── finance ───────────────────────────────────────────────────────────────
  {
    slug: 'bookkeeping',
    name: 'Bookkeeping',
    category: 'finance',
    description: 'Records transactions, categorizes them in the ledger and reconciles accounts against bank statements.',
    aliases: ['accounting', 'ledger', 'bank reconciliation', 'reconciliation', 'journal entries', 'bookkeeper'],
  },
  {
    slug: 'invoice-processing',
    name: 'Invoice Processing',
    category: 'finance',
    description: 'Reads incoming invoices, extracts their line items and routes them for approval and payment.',
    aliases: ['invoices', 'accounts payable', 'ap automation', 'bill processing', 'invoice extraction', 'invoicing'],
  },
  {
    slug: 'expense-management',
    name: 'Expense Management',
    category: 'finance',
    description: 'Collects receipts, categorizes spending and prepares expense reports for reimbursement.',
    aliases: ['expenses', 'expense reports', 'receipts', 'spend tracking', 'reimbursement', 'expense tracking'],
  },
  {
    slug: 'financial-analysis',
    name: 'Financial Analysis',
    category: 'finance',
    description: 'Analyses financial statements and builds models to assess performance, ratios and valuation.',
    aliases: ['financial modeling', 'financial modelling', 'financial statements', 'ratio analysis', 'valuation', 'dcf'],
  },
  {
    slug: 'budgeting',
    name: 'Budgeting & Financial Planning',
    category: 'finance',
    description: 'Builds budgets and cash-flow projections and tracks actual spending against the plan.',
    aliases: ['budget', 'budget planning', 'financial planning', 'cash flow forecast', 'financial forecast', 'personal finance'],
  },
  {
    slug: 'tax-preparation',
    name: 'Tax Preparation',
    category: 'finance',
    description: 'Gathers income and deduction data and prepares tax returns or VAT and sales-tax filings.',
    aliases: ['taxes', 'tax return', 'tax filing', 'vat', 'sales tax', 'file taxes'],
  },
  {
    slug: 'portfolio-analysis',
    name: 'Investment & Portfolio Analysis',
    category: 'finance',
    description: 'Researches stocks and funds and evaluates portfolio allocation, risk and returns.',
    aliases: ['stock analysis', 'stocks', 'equity research', 'investing', 'trading signals', 'asset allocation'],
  },
  {
    slug: 'fraud-detection',
    name: 'Fraud Detection',
    category: 'finance',
    description: 'Monitors transactions for fraud and money-laundering patterns and flags suspicious activity.',
    aliases: ['fraud', 'transaction monitoring', 'aml', 'anti money laundering', 'chargeback prevention', 'suspicious transactions'],
  },

  // ── health ────────────────────────────────────────────────────────────────
  {
    slug: 'symptom-checking',
    name: 'Symptom Checking',
    category: 'health',
    description: 'Asks about symptoms and suggests possible causes and how urgently to seek medical care.',
    aliases: ['symptom checker', 'medical triage', 'health triage', 'check symptoms', 'am i sick'],
  },
  {
    slug: 'medical-transcription',
    name: 'Medical Transcription',
    category: 'health',
    description: 'Turns clinician and patient conversations into structured clinical notes.',
    aliases: ['clinical notes', 'medical scribe', 'ambient scribe', 'soap notes', 'clinical documentation'],
  },
  {
    slug: 'fitness-coaching',
    name: 'Fitness Coaching',
    category: 'health',
    description: 'Creates workout plans and adapts them to progress, goals and available equipment.',
    aliases: ['workout plan', 'personal trainer', 'fitness', 'exercise plan', 'training plan', 'workouts'],
  },
  {
    slug: 'nutrition-planning',
    name: 'Nutrition Planning',
    category: 'health',
    description: 'Builds meal plans and tracks calories and macronutrients against dietary goals.',
    aliases: ['diet', 'meal plan', 'meal planning', 'calorie counting', 'nutrition', 'macros'],
  },
  {
    slug: 'medication-management',
    name: 'Medication Management',
    category: 'health',
    description: 'Tracks prescriptions, sends dose reminders and checks for drug interactions.',
    aliases: ['medication reminder', 'pill reminder', 'drug interactions', 'prescription tracking', 'medications'],
  },
  {
    slug: 'mental-health-support',
    name: 'Mental Health Support',
    category: 'health',
    description: 'Offers supportive conversation, mood tracking and coping exercises and refers to professionals when needed.',
    aliases: ['mental wellbeing', 'well being', 'mood tracking', 'stress management', 'therapy chatbot', 'mindfulness'],
  },

  // ── legal ─────────────────────────────────────────────────────────────────
  {
    slug: 'contract-review',
    name: 'Contract Review',
    category: 'legal',
    description: 'Reads contracts, extracts key clauses and flags risky or non-standard terms.',
    aliases: ['contract analysis', 'review contract', 'clause extraction', 'redlining', 'nda review', 'legal review'],
  },
  {
    slug: 'contract-drafting',
    name: 'Contract Drafting',
    category: 'legal',
    description: 'Drafts contracts and legal agreements from templates and the parties\' stated terms.',
    aliases: ['draft contract', 'legal drafting', 'agreement template', 'draft nda', 'terms of service', 'write agreement'],
  },
  {
    slug: 'legal-research',
    name: 'Legal Research',
    category: 'legal',
    description: 'Finds relevant case law, statutes and regulations for a legal question and summarizes them with citations.',
    aliases: ['case law', 'case law research', 'statutes', 'precedent search', 'legal citations', 'law research'],
  },
  {
    slug: 'compliance-monitoring',
    name: 'Compliance Monitoring',
    category: 'legal',
    description: 'Checks policies, processes and systems against regulations and standards and reports gaps.',
    aliases: ['compliance', 'regulatory compliance', 'gdpr', 'soc 2', 'hipaa', 'audit readiness', 'compliance check'],
  },
  {
    slug: 'e-discovery',
    name: 'E-Discovery',
    category: 'legal',
    description: 'Collects, filters and reviews documents and communications relevant to litigation.',
    aliases: ['ediscovery', 'document discovery', 'litigation support', 'legal hold', 'privilege review'],
  },
  {
    slug: 'intellectual-property',
    name: 'Intellectual Property Search',
    category: 'legal',
    description: 'Searches patents and trademarks for prior art and conflicts and helps prepare filings.',
    aliases: ['patent search', 'trademark search', 'prior art', 'ip search', 'patents', 'trademarks'],
  },

  // ── marketing ─────────────────────────────────────────────────────────────
  {
    slug: 'seo-optimization',
    name: 'SEO Optimization',
    category: 'marketing',
    description: 'Researches keywords and audits pages to improve their ranking in search engine results.',
    aliases: ['seo', 'search engine optimization', 'search engine optimisation', 'keyword research', 'serp', 'on page seo'],
  },
  {
    slug: 'social-media-management',
    name: 'Social Media Management',
    category: 'marketing',
    description: 'Plans, writes and publishes social media posts and engages with followers across platforms.',
    aliases: ['social media', 'social posts', 'instagram', 'linkedin posts', 'tweets', 'community management'],
  },
  {
    slug: 'ad-campaign-management',
    name: 'Ad Campaign Management',
    category: 'marketing',
    description: 'Creates, targets and optimizes paid advertising campaigns within a budget.',
    aliases: ['ads', 'ppc', 'google ads', 'paid ads', 'facebook ads', 'sem', 'paid media'],
  },
  {
    slug: 'email-marketing',
    name: 'Email Marketing',
    category: 'marketing',
    description: 'Builds newsletters and drip campaigns, segments audiences and measures opens and clicks.',
    aliases: ['newsletter', 'newsletters', 'email campaigns', 'drip campaign', 'mailchimp', 'email blast'],
  },
  {
    slug: 'market-research',
    name: 'Market Research',
    category: 'marketing',
    description: 'Studies markets, customers and competitors to size opportunities and inform positioning.',
    aliases: ['competitor analysis', 'competitive analysis', 'market analysis', 'industry research', 'market sizing', 'tam'],
  },
  {
    slug: 'brand-monitoring',
    name: 'Brand Monitoring',
    category: 'marketing',
    description: 'Tracks mentions of a brand across news, reviews and social media and reports on reputation.',
    aliases: ['brand mentions', 'social listening', 'reputation management', 'media monitoring', 'reputation monitoring'],
  },

  // ── productivity ──────────────────────────────────────────────────────────
  {
    slug: 'task-management',
    name: 'Task Management',
    category: 'productivity',
    description: 'Captures, prioritizes and tracks to-do items and reminds the owner of what is due.',
    aliases: ['todo', 'to do list', 'todo list', 'tasks', 'task tracking', 'prioritize tasks', 'prioritise tasks'],
  },
  {
    slug: 'note-taking',
    name: 'Note Taking',
    category: 'productivity',
    description: 'Captures, organizes and retrieves personal notes and ideas.',
    aliases: ['notes', 'take notes', 'note taker', 'notebook', 'jot down'],
  },
  {
    slug: 'meeting-summarization',
    name: 'Meeting Summarization',
    category: 'productivity',
    description: 'Produces meeting minutes with decisions and action items from a recording or transcript.',
    aliases: ['meeting notes', 'meeting minutes', 'meeting recap', 'action items', 'meeting summary', 'summarise meeting', 'summarize meeting'],
  },
  {
    slug: 'project-management',
    name: 'Project Management',
    category: 'productivity',
    description: 'Plans projects into milestones and tasks, tracks progress and reports on risks and status.',
    aliases: ['project planning', 'project tracking', 'gantt', 'milestones', 'sprint planning', 'status report'],
  },
  {
    slug: 'knowledge-management',
    name: 'Knowledge Management',
    category: 'productivity',
    description: 'Organizes team or personal knowledge into a searchable wiki and keeps it up to date.',
    aliases: ['knowledge base', 'wiki', 'second brain', 'internal docs', 'team wiki'],
  },
  {
    slug: 'habit-tracking',
    name: 'Habit Tracking',
    category: 'productivity',
    description: 'Tracks daily habits and personal goals and nudges the user to keep their streaks.',
    aliases: ['habits', 'goal tracking', 'streaks', 'daily routine', 'accountability partner'],
  },

  // ── research ──────────────────────────────────────────────────────────────
  {
    slug: 'web-research',
    name: 'Web Research',
    category: 'research',
    description: 'Searches the web, reads the relevant pages and answers a question with cited sources.',
    aliases: ['web search', 'search the web', 'online research', 'look up', 'google it', 'browse the web'],
  },
  {
    slug: 'literature-review',
    name: 'Literature Review',
    category: 'research',
    description: 'Finds and summarizes academic papers on a topic and maps the state of the field.',
    aliases: ['academic papers', 'paper search', 'scholarly search', 'systematic review', 'research papers', 'arxiv'],
  },
  {
    slug: 'fact-checking',
    name: 'Fact Checking',
    category: 'research',
    description: 'Verifies claims against reliable sources and rates how well each claim is supported.',
    aliases: ['fact check', 'verify claims', 'claim verification', 'misinformation', 'source verification'],
  },
  {
    slug: 'deep-research',
    name: 'Deep Research',
    category: 'research',
    description: 'Runs a multi-step investigation across many sources and writes a structured research report.',
    aliases: ['research report', 'in depth research', 'research synthesis', 'investigate topic', 'research assistant'],
  },
  {
    slug: 'citation-management',
    name: 'Citation Management',
    category: 'research',
    description: 'Collects references and formats citations and bibliographies in the required style.',
    aliases: ['citations', 'bibliography', 'references', 'apa', 'mla', 'cite sources'],
  },

  // ── security ──────────────────────────────────────────────────────────────
  {
    slug: 'vulnerability-scanning',
    name: 'Vulnerability Scanning',
    category: 'security',
    description: 'Scans code, dependencies and hosts for known vulnerabilities and prioritizes the findings.',
    aliases: ['vuln scan', 'cve scanning', 'dependency scanning', 'security scan', 'sca', 'sast'],
  },
  {
    slug: 'penetration-testing',
    name: 'Penetration Testing',
    category: 'security',
    description: 'Attempts authorized attacks on systems and applications to find exploitable weaknesses.',
    aliases: ['pentest', 'pen test', 'pentesting', 'red team', 'ethical hacking', 'dast'],
  },
  {
    slug: 'threat-detection',
    name: 'Threat Detection',
    category: 'security',
    description: 'Analyses security telemetry to detect intrusions, malware and suspicious behaviour.',
    aliases: ['threat hunting', 'intrusion detection', 'siem', 'ids', 'soc monitoring', 'edr'],
  },
  {
    slug: 'security-incident-response',
    name: 'Security Incident Response',
    category: 'security',
    description: 'Contains and investigates security breaches and guides recovery and disclosure.',
    aliases: ['dfir', 'breach response', 'digital forensics', 'malware analysis', 'security breach', 'forensics'],
  },
  {
    slug: 'access-management',
    name: 'Access Management',
    category: 'security',
    description: 'Reviews and manages user identities, roles and permissions to enforce least privilege.',
    aliases: ['iam', 'identity and access management', 'access review', 'permissions', 'rbac', 'sso'],
  },
  {
    slug: 'phishing-detection',
    name: 'Phishing Detection',
    category: 'security',
    description: 'Analyses emails, messages and links to identify phishing and scam attempts.',
    aliases: ['phishing', 'scam detection', 'suspicious email', 'email security', 'malicious links'],
  },
  {
    slug: 'secrets-detection',
    name: 'Secrets Detection',
    category: 'security',
    description: 'Finds leaked passwords, API keys and tokens in code, logs and configuration.',
    aliases: ['secret scanning', 'leaked secrets', 'credential scanning', 'api key leak', 'leaked credentials'],
  },
  {
    slug: 'identity-verification',
    name: 'Identity Verification',
    category: 'security',
    description: 'Verifies that a person is who they claim to be using identity documents and checks.',
    aliases: ['kyc', 'know your customer', 'id verification', 'age verification', 'document verification'],
  },

  // ── support ───────────────────────────────────────────────────────────────
  {
    slug: 'ticket-triage',
    name: 'Ticket Triage',
    category: 'support',
    description: 'Classifies incoming support tickets by topic and urgency and routes them to the right team.',
    aliases: ['ticket routing', 'ticket classification', 'support queue', 'ticket tagging', 'helpdesk triage'],
  },
  {
    slug: 'customer-support-chat',
    name: 'Customer Support Chat',
    category: 'support',
    description: 'Answers customer questions in chat or email and resolves common issues without a human.',
    aliases: ['customer service', 'support chatbot', 'live chat', 'help desk', 'helpdesk', 'customer care', 'answer customers'],
  },
  {
    slug: 'faq-answering',
    name: 'FAQ Answering',
    category: 'support',
    description: 'Answers frequently asked questions from a help center and suggests relevant articles.',
    aliases: ['faq', 'faqs', 'help center', 'help centre', 'self service', 'canned responses'],
  },
  {
    slug: 'complaint-resolution',
    name: 'Complaint Resolution',
    category: 'support',
    description: 'Handles customer complaints and escalations and proposes a fair remedy.',
    aliases: ['complaints', 'escalations', 'escalation handling', 'dispute handling', 'angry customer'],
  },
  {
    slug: 'customer-feedback-analysis',
    name: 'Customer Feedback Analysis',
    category: 'support',
    description: 'Aggregates survey responses and customer feedback into themes and satisfaction trends.',
    aliases: ['nps', 'csat', 'voice of customer', 'voc', 'customer feedback', 'survey analysis'],
  },
  {
    slug: 'it-helpdesk',
    name: 'IT Helpdesk',
    category: 'support',
    description: 'Resolves employee IT requests such as password resets, access problems and device issues.',
    aliases: ['it support', 'tech support', 'password reset', 'service desk', 'technical support'],
  },

  // ── communication ─────────────────────────────────────────────────────────
  {
    slug: 'email-drafting',
    name: 'Email Drafting',
    category: 'communication',
    description: 'Writes and replies to emails in the requested tone on behalf of the user.',
    aliases: ['write email', 'compose email', 'email reply', 'reply to email', 'email writing', 'draft email'],
  },
  {
    slug: 'email-digest',
    name: 'Email Digest',
    category: 'communication',
    description: 'Summarizes unread or recent email into a short digest of what needs attention.',
    aliases: ['inbox summary', 'summarise my inbox', 'summarize my inbox', 'email summary', 'daily digest', 'inbox digest'],
  },
  {
    slug: 'email-triage',
    name: 'Email Triage',
    category: 'communication',
    description: 'Sorts, labels and prioritizes incoming email and filters out spam and noise.',
    aliases: ['inbox management', 'inbox zero', 'sort email', 'email prioritization', 'email filtering', 'spam filtering'],
  },
  {
    slug: 'team-messaging',
    name: 'Team Messaging',
    category: 'communication',
    description: 'Sends, reads and answers messages in chat platforms such as Slack, Teams or WhatsApp.',
    aliases: ['messaging', 'slack bot', 'send message', 'chat messages', 'whatsapp', 'teams bot'],
  },
  {
    slug: 'voice-calling',
    name: 'Voice Calling',
    category: 'communication',
    description: 'Places and answers phone calls and holds spoken conversations on the user\'s behalf.',
    aliases: ['phone calls', 'outbound calls', 'call handling', 'virtual receptionist', 'ivr', 'voice agent'],
  },
  {
    slug: 'notification-delivery',
    name: 'Notification Delivery',
    category: 'communication',
    description: 'Delivers notifications over SMS, push, email or chat and respects user preferences.',
    aliases: ['notifications', 'sms', 'push notifications', 'text message', 'send alerts'],
  },

  // ── writing ───────────────────────────────────────────────────────────────
  {
    slug: 'copywriting',
    name: 'Copywriting',
    category: 'writing',
    description: 'Writes persuasive marketing copy such as headlines, taglines, landing pages and ad text.',
    aliases: ['ad copy', 'marketing copy', 'sales copy', 'tagline', 'slogan', 'landing page copy'],
  },
  {
    slug: 'blog-writing',
    name: 'Blog & Article Writing',
    category: 'writing',
    description: 'Researches and writes long-form blog posts and articles on a given topic.',
    aliases: ['blog posts', 'blog post', 'articles', 'article writing', 'content writing', 'long form content'],
  },
  {
    slug: 'text-summarization',
    name: 'Text Summarization',
    category: 'writing',
    description: 'Condenses long text into a short summary that keeps the key points.',
    aliases: ['summarize', 'summarise', 'summary', 'summarisation', 'tldr', 'condense', 'key points', 'abstract'],
  },
  {
    slug: 'proofreading',
    name: 'Proofreading',
    category: 'writing',
    description: 'Checks text for spelling, grammar and punctuation errors and suggests corrections.',
    aliases: ['grammar check', 'spell check', 'spellcheck', 'proofread', 'grammar', 'copy editing', 'copyediting'],
  },
  {
    slug: 'paraphrasing',
    name: 'Paraphrasing & Rewriting',
    category: 'writing',
    description: 'Rewrites text in different words, length or tone while keeping its meaning.',
    aliases: ['rewrite', 'rephrase', 'reword', 'paraphrase', 'change tone', 'simplify text'],
  },
  {
    slug: 'creative-writing',
    name: 'Creative Writing',
    category: 'writing',
    description: 'Writes fiction, poetry, scripts and other creative pieces in a requested style.',
    aliases: ['stories', 'story writing', 'fiction', 'poetry', 'poems', 'screenplay', 'storytelling'],
  },
  {
    slug: 'technical-writing',
    name: 'Technical Writing',
    category: 'writing',
    description: 'Writes user manuals, how-to guides and product documentation for technical audiences.',
    aliases: ['user manual', 'user guide', 'how to guide', 'product documentation', 'technical docs', 'documentation writing'],
  },

  // ── media ─────────────────────────────────────────────────────────────────
  {
    slug: 'image-generation',
    name: 'Image Generation',
    category: 'media',
    description: 'Creates images, illustrations and artwork from a text prompt.',
    aliases: ['text to image', 'ai art', 'generate image', 'create image', 'illustration', 'image creation'],
  },
  {
    slug: 'image-editing',
    name: 'Image Editing',
    category: 'media',
    description: 'Retouches, crops, upscales and removes or replaces elements and backgrounds in images.',
    aliases: ['photo editing', 'retouching', 'background removal', 'remove background', 'upscale image', 'photoshop'],
  },
  {
    slug: 'video-editing',
    name: 'Video Editing',
    category: 'media',
    description: 'Cuts, trims and assembles footage into finished videos and short clips.',
    aliases: ['edit video', 'trim video', 'video clips', 'video production', 'short form video', 'reels'],
  },
  {
    slug: 'video-generation',
    name: 'Video Generation',
    category: 'media',
    description: 'Generates video or animation from a text prompt, script or still images.',
    aliases: ['text to video', 'ai video', 'generate video', 'animation', 'avatar video'],
  },
  {
    slug: 'graphic-design',
    name: 'Graphic Design',
    category: 'media',
    description: 'Designs logos, banners, posters, thumbnails and other visual brand assets.',
    aliases: ['logo design', 'logo', 'banners', 'poster design', 'thumbnails', 'brand assets', 'infographics'],
  },
  {
    slug: 'music-generation',
    name: 'Music Generation',
    category: 'media',
    description: 'Composes music, songs, jingles and sound effects from a description.',
    aliases: ['generate music', 'compose music', 'song writing', 'songwriting', 'jingle', 'soundtrack', 'sound effects'],
  },
  {
    slug: 'ui-design',
    name: 'UI/UX Design',
    category: 'media',
    description: 'Produces wireframes, mockups and interactive prototypes for apps and websites.',
    aliases: ['ux design', 'ui ux', 'wireframes', 'mockups', 'prototyping', 'figma', 'web design'],
  },

  // ── language ──────────────────────────────────────────────────────────────
  {
    slug: 'translation',
    name: 'Translation',
    category: 'language',
    description: 'Translates text or documents between languages while preserving meaning and tone.',
    aliases: ['translate', 'language translation', 'translator', 'machine translation', 'interpret'],
  },
  {
    slug: 'localization',
    name: 'Localization',
    category: 'language',
    description: 'Adapts software, content and marketing for a specific locale, language and culture.',
    aliases: ['localisation', 'l10n', 'i18n', 'internationalization', 'internationalisation', 'localize', 'localise'],
  },
  {
    slug: 'speech-to-text',
    name: 'Speech to Text',
    category: 'language',
    description: 'Transcribes spoken audio from recordings or live streams into text.',
    aliases: ['stt', 'transcription', 'transcribe', 'dictation', 'voice to text', 'asr', 'audio transcription'],
  },
  {
    slug: 'text-to-speech',
    name: 'Text to Speech',
    category: 'language',
    description: 'Converts written text into natural-sounding spoken audio in a chosen voice.',
    aliases: ['tts', 'voice synthesis', 'speech synthesis', 'read aloud', 'voiceover', 'narration', 'voice cloning'],
  },
  {
    slug: 'subtitle-generation',
    name: 'Subtitle Generation',
    category: 'language',
    description: 'Creates timed subtitles or closed captions for video, optionally translated.',
    aliases: ['subtitles', 'captions', 'closed captions', 'captioning', 'srt'],
  },
  {
    slug: 'language-detection',
    name: 'Language Detection',
    category: 'language',
    description: 'Identifies which language or languages a piece of text is written in.',
    aliases: ['detect language', 'language identification', 'which language', 'langid'],
  },

  // ── education ─────────────────────────────────────────────────────────────
  {
    slug: 'tutoring',
    name: 'Tutoring',
    category: 'education',
    description: 'Teaches a subject step by step, answers questions and helps with homework.',
    aliases: ['tutor', 'homework help', 'study help', 'explain concepts', 'teach me', 'math help'],
  },
  {
    slug: 'quiz-generation',
    name: 'Quiz Generation',
    category: 'education',
    description: 'Creates quizzes, flashcards and practice questions from learning material.',
    aliases: ['quiz', 'quiz maker', 'flashcards', 'practice questions', 'multiple choice questions', 'exam prep'],
  },
  {
    slug: 'lesson-planning',
    name: 'Lesson Planning',
    category: 'education',
    description: 'Designs lesson plans, syllabi and course outlines aligned with learning objectives.',
    aliases: ['lesson plan', 'lesson plans', 'curriculum', 'syllabus', 'course design', 'teaching materials'],
  },
  {
    slug: 'essay-grading',
    name: 'Essay Grading',
    category: 'education',
    description: 'Grades essays and assignments against a rubric and gives written feedback.',
    aliases: ['grading', 'marking', 'auto grading', 'essay feedback', 'rubric scoring', 'assessment'],
  },
  {
    slug: 'language-learning',
    name: 'Language Learning',
    category: 'education',
    description: 'Helps learners practise a foreign language through conversation, vocabulary and corrections.',
    aliases: ['learn a language', 'conversation practice', 'vocabulary', 'language practice', 'language tutor'],
  },

  // ── sales ─────────────────────────────────────────────────────────────────
  {
    slug: 'lead-generation',
    name: 'Lead Generation',
    category: 'sales',
    description: 'Finds prospective customers that match an ideal customer profile and gathers their contact details.',
    aliases: ['leads', 'prospecting', 'find leads', 'prospect list', 'lead sourcing', 'contact enrichment'],
  },
  {
    slug: 'lead-qualification',
    name: 'Lead Qualification',
    category: 'sales',
    description: 'Scores and qualifies inbound leads so that sales focuses on the most promising ones.',
    aliases: ['lead scoring', 'qualify leads', 'bant', 'mql', 'sales qualified lead', 'sales qualification'],
  },
  {
    slug: 'sales-outreach',
    name: 'Sales Outreach',
    category: 'sales',
    description: 'Writes and sends personalized cold outreach and follow-up sequences to prospects.',
    aliases: ['cold email', 'cold outreach', 'outbound sales', 'sales sequences', 'follow up emails', 'sdr'],
  },
  {
    slug: 'crm-management',
    name: 'CRM Management',
    category: 'sales',
    description: 'Keeps CRM records, deals and pipeline stages accurate and up to date.',
    aliases: ['crm', 'salesforce', 'hubspot', 'update crm', 'pipeline management', 'contact management'],
  },
  {
    slug: 'proposal-writing',
    name: 'Proposal Writing',
    category: 'sales',
    description: 'Drafts sales proposals, quotes and responses to requests for proposal.',
    aliases: ['sales proposal', 'rfp response', 'rfp', 'quotes', 'quotation', 'bid writing'],
  },
  {
    slug: 'sales-call-analysis',
    name: 'Sales Call Analysis',
    category: 'sales',
    description: 'Analyses recorded sales calls for objections, next steps and coaching opportunities.',
    aliases: ['call coaching', 'conversation intelligence', 'call analysis', 'sales coaching', 'call review'],
  },

  // ── hr ────────────────────────────────────────────────────────────────────
  {
    slug: 'resume-screening',
    name: 'Resume Screening',
    category: 'hr',
    description: 'Parses resumes and ranks candidates against the requirements of a role.',
    aliases: ['cv screening', 'resume parsing', 'cv parsing', 'candidate screening', 'applicant screening', 'resume review'],
  },
  {
    slug: 'talent-sourcing',
    name: 'Talent Sourcing',
    category: 'hr',
    description: 'Searches for and reaches out to potential candidates for open positions.',
    aliases: ['recruiting', 'recruitment', 'headhunting', 'candidate sourcing', 'find candidates', 'hiring'],
  },
  {
    slug: 'job-description-writing',
    name: 'Job Description Writing',
    category: 'hr',
    description: 'Writes clear, inclusive job descriptions and job postings for open roles.',
    aliases: ['job description', 'jd', 'job posting', 'job ad', 'job listing'],
  },
  {
    slug: 'interview-scheduling',
    name: 'Interview Scheduling',
    category: 'hr',
    description: 'Coordinates interview times between candidates and interviewers and sends invitations.',
    aliases: ['schedule interviews', 'interview coordination', 'candidate scheduling', 'book interview'],
  },
  {
    slug: 'employee-onboarding',
    name: 'Employee Onboarding',
    category: 'hr',
    description: 'Guides new hires through paperwork, accounts, training and their first weeks.',
    aliases: ['onboarding', 'new hire', 'new hires', 'orientation', 'onboarding checklist'],
  },
  {
    slug: 'payroll-processing',
    name: 'Payroll Processing',
    category: 'hr',
    description: 'Calculates salaries, deductions and payslips and runs payroll on schedule.',
    aliases: ['payroll', 'salary', 'salaries', 'wages', 'payslips', 'pay stubs'],
  },
  {
    slug: 'performance-reviews',
    name: 'Performance Reviews',
    category: 'hr',
    description: 'Collects feedback and drafts employee performance reviews and development goals.',
    aliases: ['performance review', 'appraisal', 'appraisals', '360 feedback', 'employee feedback', 'okrs'],
  },

  // ── ecommerce ─────────────────────────────────────────────────────────────
  {
    slug: 'product-description-writing',
    name: 'Product Description Writing',
    category: 'ecommerce',
    description: 'Writes product titles and descriptions optimized for online stores and marketplaces.',
    aliases: ['product descriptions', 'product description', 'product copy', 'listing copy', 'amazon listing'],
  },
  {
    slug: 'product-recommendation',
    name: 'Product Recommendation',
    category: 'ecommerce',
    description: 'Recommends products to shoppers based on their behaviour, preferences and similar items.',
    aliases: ['recommendations', 'recommender', 'personalized recommendations', 'cross sell', 'upsell', 'you may also like'],
  },
  {
    slug: 'catalog-management',
    name: 'Catalog Management',
    category: 'ecommerce',
    description: 'Maintains product catalogue data, attributes, categories and variants across sales channels.',
    aliases: ['catalogue management', 'product catalog', 'product catalogue', 'pim', 'product data', 'sku management'],
  },
  {
    slug: 'price-monitoring',
    name: 'Price Monitoring',
    category: 'ecommerce',
    description: 'Tracks competitor and marketplace prices and suggests or applies price changes.',
    aliases: ['price tracking', 'competitor prices', 'dynamic pricing', 'repricing', 'price alerts', 'pricing'],
  },
  {
    slug: 'order-management',
    name: 'Order Management',
    category: 'ecommerce',
    description: 'Processes orders, returns and refunds and keeps customers informed of order status.',
    aliases: ['orders', 'order processing', 'order status', 'returns', 'refunds', 'order fulfillment', 'order fulfilment'],
  },
  {
    slug: 'shopping-assistant',
    name: 'Shopping Assistant',
    category: 'ecommerce',
    description: 'Helps a shopper find, compare and buy products that match their needs and budget.',
    aliases: ['find products', 'product comparison', 'compare products', 'deal finder', 'gift ideas', 'personal shopper'],
  },
  {
    slug: 'review-management',
    name: 'Review Management',
    category: 'ecommerce',
    description: 'Monitors customer reviews and ratings and drafts responses to them.',
    aliases: ['product reviews', 'review replies', 'respond to reviews', 'ratings', 'google reviews'],
  },

  // ── travel ────────────────────────────────────────────────────────────────
  {
    slug: 'flight-search',
    name: 'Flight Search',
    category: 'travel',
    description: 'Searches and compares flights by price, schedule and route and helps book them.',
    aliases: ['flights', 'airfare', 'cheap flights', 'plane tickets', 'flight booking', 'book flight'],
  },
  {
    slug: 'hotel-booking',
    name: 'Hotel Booking',
    category: 'travel',
    description: 'Finds and books hotels and other accommodation that fit dates, location and budget.',
    aliases: ['hotels', 'accommodation', 'lodging', 'book a room', 'vacation rental', 'book hotel'],
  },
  {
    slug: 'itinerary-planning',
    name: 'Itinerary Planning',
    category: 'travel',
    description: 'Plans day-by-day trip itineraries including transport, stays and activities.',
    aliases: ['trip planning', 'travel itinerary', 'travel planning', 'vacation planning', 'holiday planning', 'plan a trip'],
  },
  {
    slug: 'restaurant-reservation',
    name: 'Restaurant Reservation',
    category: 'travel',
    description: 'Finds restaurants and reserves tables for the requested time and party size.',
    aliases: ['restaurant booking', 'table booking', 'dinner reservation', 'book a table', 'opentable'],
  },
  {
    slug: 'travel-requirements',
    name: 'Travel Requirements',
    category: 'travel',
    description: 'Explains visa, passport, vaccination and entry requirements for a trip.',
    aliases: ['visa requirements', 'entry requirements', 'travel restrictions', 'passport requirements', 'visa'],
  },
  {
    slug: 'local-recommendations',
    name: 'Local Recommendations',
    category: 'travel',
    description: 'Suggests attractions, activities and places to eat at a destination.',
    aliases: ['things to do', 'attractions', 'sightseeing', 'local guide', 'points of interest', 'tour guide'],
  },

  // ── analytics ─────────────────────────────────────────────────────────────
  {
    slug: 'data-visualization',
    name: 'Data Visualization',
    category: 'analytics',
    description: 'Turns data into charts and graphs that make patterns easy to see.',
    aliases: ['data visualisation', 'charts', 'graphs', 'plotting', 'make a chart', 'visualize data', 'visualise data'],
  },
  {
    slug: 'business-intelligence',
    name: 'Business Intelligence Reporting',
    category: 'analytics',
    description: 'Builds dashboards and recurring reports that track business KPIs.',
    aliases: ['bi', 'dashboards', 'kpi dashboard', 'reporting', 'kpis', 'tableau', 'power bi'],
  },
  {
    slug: 'statistical-analysis',
    name: 'Statistical Analysis',
    category: 'analytics',
    description: 'Applies statistical tests and models to data and explains what the results mean.',
    aliases: ['statistics', 'stats', 'regression', 'hypothesis testing', 'significance testing', 'correlation'],
  },
  {
    slug: 'anomaly-detection',
    name: 'Anomaly Detection',
    category: 'analytics',
    description: 'Detects outliers and unusual patterns in metrics or event data.',
    aliases: ['outlier detection', 'anomalies', 'outliers', 'unusual patterns', 'spike detection'],
  },
  {
    slug: 'ab-test-analysis',
    name: 'A/B Test Analysis',
    category: 'analytics',
    description: 'Designs experiments and evaluates A/B test results for statistical significance.',
    aliases: ['a/b testing', 'ab testing', 'split testing', 'experiment analysis', 'experimentation'],
  },
  {
    slug: 'time-series-forecasting',
    name: 'Time Series Forecasting',
    category: 'analytics',
    description: 'Forecasts future values such as demand, traffic or sales from historical time-series data.',
    aliases: ['forecasting', 'demand forecasting', 'sales forecasting', 'time series', 'predictive analytics', 'trend prediction'],
  },
  {
    slug: 'web-analytics',
    name: 'Web Analytics',
    category: 'analytics',
    description: 'Analyses website and app traffic, funnels and conversions to explain user behaviour.',
    aliases: ['google analytics', 'traffic analysis', 'site analytics', 'conversion tracking', 'funnel analysis', 'product analytics'],
  },
  {
    slug: 'spreadsheet-analysis',
    name: 'Spreadsheet Analysis',
    category: 'analytics',
    description: 'Reads, analyses and builds spreadsheets, including formulas and pivot tables.',
    aliases: ['spreadsheets', 'spreadsheet', 'excel', 'google sheets', 'formulas', 'pivot tables', 'csv analysis'],
  },

  // ── ai-ml ─────────────────────────────────────────────────────────────────
  {
    slug: 'sentiment-analysis',
    name: 'Sentiment Analysis',
    category: 'ai-ml',
    description: 'Determines whether text expresses positive, negative or neutral sentiment and which emotions.',
    aliases: ['sentiment', 'opinion mining', 'emotion detection', 'tone analysis', 'positive or negative'],
  },
  {
    slug: 'text-classification',
    name: 'Text Classification',
    category: 'ai-ml',
    description: 'Assigns labels, topics or intents to pieces of text.',
    aliases: ['classify text', 'categorize text', 'categorise text', 'topic classification', 'intent detection', 'content moderation'],
  },
  {
    slug: 'named-entity-recognition',
    name: 'Named Entity Recognition',
    category: 'ai-ml',
    description: 'Finds people, organizations, places, dates and other entities mentioned in text.',
    aliases: ['ner', 'entity extraction', 'entity recognition', 'extract entities', 'extract names'],
  },
  {
    slug: 'image-analysis',
    name: 'Image Analysis',
    category: 'ai-ml',
    description: 'Describes, classifies and detects objects in images and video frames.',
    aliases: ['computer vision', 'image recognition', 'object detection', 'image captioning', 'describe image', 'image classification', 'vision'],
  },
  {
    slug: 'model-fine-tuning',
    name: 'Model Fine-Tuning',
    category: 'ai-ml',
    description: 'Prepares training data and fine-tunes machine-learning models for a specific task.',
    aliases: ['fine tuning', 'finetuning', 'finetune', 'train model', 'model training', 'lora'],
  },
  {
    slug: 'semantic-search',
    name: 'Semantic Search',
    category: 'ai-ml',
    description: 'Indexes content as embeddings and retrieves the most relevant passages by meaning.',
    aliases: ['vector search', 'embeddings', 'rag', 'retrieval augmented generation', 'similarity search', 'neural search'],
  },
  {
    slug: 'agent-orchestration',
    name: 'Agent Orchestration',
    category: 'ai-ml',
    description: 'Breaks a goal into subtasks and delegates them to other agents, then combines their results.',
    aliases: ['multi agent', 'orchestrator', 'task delegation', 'agent coordination', 'planner agent', 'agent routing'],
  },
  {
    slug: 'prompt-engineering',
    name: 'Prompt Engineering',
    category: 'ai-ml',
    description: 'Writes and iteratively improves prompts and system instructions for language models.',
    aliases: ['prompt optimization', 'prompt optimisation', 'prompt writing', 'prompts', 'system prompt', 'prompt tuning'],
  },
  {
    slug: 'data-labeling',
    name: 'Data Labeling',
    category: 'ai-ml',
    description: 'Annotates text, images or audio with labels to create training and evaluation datasets.',
    aliases: ['data labelling', 'annotation', 'data annotation', 'labeling', 'labelling', 'ground truth'],
  },
  {
    slug: 'model-evaluation',
    name: 'Model Evaluation',
    category: 'ai-ml',
    description: 'Benchmarks models and agents on test sets and reports accuracy, quality and regressions.',
    aliases: ['evals', 'llm evaluation', 'benchmarking', 'model testing', 'model benchmark', 'llm as judge'],
  },

  // ── automation ────────────────────────────────────────────────────────────
  {
    slug: 'workflow-automation',
    name: 'Workflow Automation',
    category: 'automation',
    description: 'Automates multi-step business processes that span several apps and approvals.',
    aliases: ['workflows', 'automate', 'zapier', 'business process automation', 'no code automation', 'n8n'],
  },
  {
    slug: 'browser-automation',
    name: 'Browser Automation',
    category: 'automation',
    description: 'Operates a web browser to navigate sites, click through pages and complete tasks.',
    aliases: ['web automation', 'headless browser', 'selenium', 'playwright', 'puppeteer', 'computer use'],
  },
  {
    slug: 'robotic-process-automation',
    name: 'Robotic Process Automation',
    category: 'automation',
    description: 'Automates repetitive desktop and back-office tasks by driving existing application user interfaces.',
    aliases: ['rpa', 'desktop automation', 'screen automation', 'uipath', 'back office automation'],
  },
  {
    slug: 'api-integration',
    name: 'API Integration',
    category: 'automation',
    description: 'Connects applications through their APIs and webhooks so that data flows between them.',
    aliases: ['integrations', 'connect apps', 'webhooks', 'api calls', 'app integration', 'rest api'],
  },
  {
    slug: 'form-filling',
    name: 'Form Filling',
    category: 'automation',
    description: 'Fills in web and document forms from known information and submits them.',
    aliases: ['fill forms', 'fill out form', 'autofill', 'form completion', 'application forms'],
  },
  {
    slug: 'scheduled-jobs',
    name: 'Scheduled Jobs',
    category: 'automation',
    description: 'Runs tasks automatically on a recurring schedule and reports their outcome.',
    aliases: ['cron', 'cron jobs', 'recurring tasks', 'job scheduler', 'batch jobs'],
  },

  // ── documents ─────────────────────────────────────────────────────────────
  {
    slug: 'optical-character-recognition',
    name: 'Optical Character Recognition',
    category: 'documents',
    description: 'Extracts machine-readable text from scanned documents, photos and images.',
    aliases: ['ocr', 'scan to text', 'image to text', 'text recognition', 'digitize documents', 'digitise documents'],
  },
  {
    slug: 'pdf-processing',
    name: 'PDF Processing',
    category: 'documents',
    description: 'Merges, splits, edits, compresses and extracts content from PDF files.',
    aliases: ['pdf', 'pdfs', 'merge pdf', 'split pdf', 'edit pdf', 'pdf tools'],
  },
  {
    slug: 'document-question-answering',
    name: 'Document Question Answering',
    category: 'documents',
    description: 'Answers questions about the contents of uploaded documents with references to the source passages.',
    aliases: ['chat with pdf', 'chat with documents', 'ask documents', 'document qa', 'doc qa', 'question answering'],
  },
  {
    slug: 'document-generation',
    name: 'Document Generation',
    category: 'documents',
    description: 'Generates letters, reports and other documents from templates and data.',
    aliases: ['generate documents', 'create document', 'document templates', 'mail merge', 'report generation'],
  },
  {
    slug: 'document-classification',
    name: 'Document Classification',
    category: 'documents',
    description: 'Sorts incoming documents by type and routes or files them accordingly.',
    aliases: ['classify documents', 'document sorting', 'document routing', 'document tagging', 'file organization', 'file organisation'],
  },
  {
    slug: 'file-conversion',
    name: 'File Conversion',
    category: 'documents',
    description: 'Converts files between formats such as Word, PDF, HTML, Markdown and images.',
    aliases: ['convert files', 'convert file', 'format conversion', 'file converter', 'docx to pdf', 'markdown to pdf'],
  },
  {
    slug: 'e-signature',
    name: 'E-Signature',
    category: 'documents',
    description: 'Prepares documents for electronic signature, collects signatures and tracks their status.',
    aliases: ['esign', 'electronic signature', 'docusign', 'sign documents', 'digital signature'],
  },
  {
    slug: 'presentation-creation',
    name: 'Presentation Creation',
    category: 'documents',
    description: 'Builds slide decks with structure, content and visuals from an outline or document.',
    aliases: ['slides', 'slide deck', 'powerpoint', 'pitch deck', 'presentations', 'google slides'],
  },

  // ── scheduling ────────────────────────────────────────────────────────────
  {
    slug: 'meeting-scheduling',
    name: 'Meeting Scheduling',
    category: 'scheduling',
    description: 'Finds a time that works for all attendees and books the meeting.',
    aliases: ['schedule meeting', 'book meeting', 'find a time', 'calendly', 'meeting booking', 'set up a meeting'],
  },
  {
    slug: 'calendar-management',
    name: 'Calendar Management',
    category: 'scheduling',
    description: 'Manages calendar events, resolves conflicts and protects focus time.',
    aliases: ['calendar', 'manage calendar', 'calendar sync', 'google calendar', 'outlook calendar', 'agenda'],
  },
  {
    slug: 'reminders',
    name: 'Reminders',
    category: 'scheduling',
    description: 'Sets reminders and follow-ups and delivers them at the right time.',
    aliases: ['reminder', 'remind me', 'alarm', 'follow up reminder', 'nudge'],
  },
  {
    slug: 'appointment-booking',
    name: 'Appointment Booking',
    category: 'scheduling',
    description: 'Books, reschedules and cancels appointments with businesses or service providers.',
    aliases: ['appointments', 'book appointment', 'booking system', 'reschedule appointment', 'patient scheduling'],
  },
  {
    slug: 'shift-scheduling',
    name: 'Shift Scheduling',
    category: 'scheduling',
    description: 'Creates staff rotas that cover demand while respecting availability and labour rules.',
    aliases: ['rota', 'roster', 'rostering', 'shift planning', 'workforce scheduling', 'staff scheduling'],
  },
  {
    slug: 'time-tracking',
    name: 'Time Tracking',
    category: 'scheduling',
    description: 'Records time spent on tasks and projects and produces timesheets.',
    aliases: ['timesheet', 'timesheets', 'track hours', 'billable hours', 'time log'],
  },

  // ── iot ───────────────────────────────────────────────────────────────────
  {
    slug: 'smart-home-control',
    name: 'Smart Home Control',
    category: 'iot',
    description: 'Controls lights, thermostats, locks and other connected home devices.',
    aliases: ['smart home', 'home automation', 'smart lights', 'thermostat', 'home assistant', 'alexa'],
  },
  {
    slug: 'device-monitoring',
    name: 'Device Monitoring',
    category: 'iot',
    description: 'Collects telemetry from sensors and connected devices and alerts on faults.',
    aliases: ['iot monitoring', 'sensor monitoring', 'telemetry', 'sensor data', 'device health'],
  },
  {
    slug: 'predictive-maintenance',
    name: 'Predictive Maintenance',
    category: 'iot',
    description: 'Predicts equipment failures from sensor data and schedules maintenance before they happen.',
    aliases: ['equipment maintenance', 'failure prediction', 'machine health', 'condition monitoring', 'asset maintenance'],
  },
  {
    slug: 'energy-management',
    name: 'Energy Management',
    category: 'iot',
    description: 'Monitors and optimizes energy consumption of buildings, devices or solar installations.',
    aliases: ['energy usage', 'power consumption', 'energy optimization', 'energy optimisation', 'electricity usage', 'solar'],
  },
  {
    slug: 'camera-monitoring',
    name: 'Camera Monitoring',
    category: 'iot',
    description: 'Watches security camera feeds and alerts on people, vehicles or unusual activity.',
    aliases: ['security cameras', 'cctv', 'video surveillance', 'doorbell camera', 'intruder alerts'],
  },

  // ── gaming ────────────────────────────────────────────────────────────────
  {
    slug: 'game-master',
    name: 'Game Master',
    category: 'gaming',
    description: 'Runs tabletop role-playing games and interactive text adventures for players.',
    aliases: ['dungeon master', 'tabletop rpg', 'dnd', 'd&d', 'text adventure', 'interactive fiction', 'role play'],
  },
  {
    slug: 'npc-dialogue',
    name: 'NPC Dialogue',
    category: 'gaming',
    description: 'Voices non-player characters with dynamic, in-character dialogue inside games.',
    aliases: ['npc', 'non player character', 'game characters', 'character dialogue', 'in game dialogue'],
  },
  {
    slug: 'game-testing',
    name: 'Game Testing',
    category: 'gaming',
    description: 'Plays through games to find bugs, balance issues and usability problems.',
    aliases: ['playtesting', 'playtest', 'game qa', 'game bugs', 'game balancing'],
  },
  {
    slug: 'game-asset-generation',
    name: 'Game Asset Generation',
    category: 'gaming',
    description: 'Generates sprites, textures, 3D models and levels for games.',
    aliases: ['game assets', 'sprites', 'textures', '3d models', 'level design', 'procedural generation'],
  },
  {
    slug: 'trivia-and-puzzles',
    name: 'Trivia & Puzzles',
    category: 'gaming',
    description: 'Hosts trivia games and creates riddles, word games and puzzles.',
    aliases: ['trivia', 'pub quiz', 'riddles', 'puzzles', 'word games', 'crossword'],
  },
  {
    slug: 'entertainment-recommendations',
    name: 'Entertainment Recommendations',
    category: 'gaming',
    description: 'Recommends movies, shows, books, music and games based on personal taste.',
    aliases: ['movie recommendations', 'what to watch', 'book recommendations', 'music recommendations', 'game recommendations', 'tv shows'],
  },

  // ── logistics ─────────────────────────────────────────────────────────────
  {
    slug: 'shipment-tracking',
    name: 'Shipment Tracking',
    category: 'logistics',
    description: 'Tracks parcels and freight across carriers and reports delays and delivery status.',
    aliases: ['track package', 'package tracking', 'parcel tracking', 'delivery status', 'where is my order', 'tracking number'],
  },
  {
    slug: 'route-optimization',
    name: 'Route Optimization',
    category: 'logistics',
    description: 'Plans the most efficient routes and stop sequences for deliveries and field visits.',
    aliases: ['route planning', 'route optimisation', 'delivery routes', 'vehicle routing', 'dispatch', 'shortest route'],
  },
  {
    slug: 'inventory-management',
    name: 'Inventory Management',
    category: 'logistics',
    description: 'Tracks stock levels across locations and triggers reorders before items run out.',
    aliases: ['inventory', 'stock levels', 'stock management', 'warehouse management', 'reorder', 'restocking'],
  },
  {
    slug: 'procurement',
    name: 'Procurement',
    category: 'logistics',
    description: 'Sources suppliers, compares quotes and raises purchase orders.',
    aliases: ['purchasing', 'purchase orders', 'supplier management', 'vendor management', 'rfq', 'supplier sourcing'],
  },
  {
    slug: 'supply-chain-planning',
    name: 'Supply Chain Planning',
    category: 'logistics',
    description: 'Balances supply and demand across suppliers, plants and warehouses to meet service targets.',
    aliases: ['supply chain', 'supply planning', 'demand planning', 's&op', 'sales and operations planning'],
  },
  {
    slug: 'freight-shipping',
    name: 'Freight & Shipping',
    category: 'logistics',
    description: 'Quotes and books freight and parcel shipping and prepares labels and customs paperwork.',
    aliases: ['freight', 'shipping rates', 'shipping quotes', 'shipping labels', 'customs documents', 'carrier selection'],
  },
  {
    slug: 'fleet-management',
    name: 'Fleet Management',
    category: 'logistics',
    description: 'Monitors vehicle locations, usage and maintenance across a fleet.',
    aliases: ['fleet', 'vehicle tracking', 'gps tracking', 'telematics', 'driver management'],
  },

  // ── other ─────────────────────────────────────────────────────────────────
  {
    slug: 'weather-lookup',
    name: 'Weather Lookup',
    category: 'other',
    description: 'Reports current weather conditions and forecasts for a location.',
    aliases: ['weather', 'weather forecast', 'weather report', 'will it rain', 'temperature'],
  },
  {
    slug: 'general-conversation',
    name: 'General Conversation',
    category: 'other',
    description: 'Holds open-ended, friendly conversation and answers general questions.',
    aliases: ['chitchat', 'chit chat', 'small talk', 'companion', 'chatbot', 'general chat'],
  },
  {
    slug: 'recipe-generation',
    name: 'Recipe Generation',
    category: 'other',
    description: 'Suggests recipes and cooking instructions from available ingredients and preferences.',
    aliases: ['recipes', 'recipe', 'cooking', 'what to cook', 'meal ideas'],
  },
  {
    slug: 'unit-conversion',
    name: 'Unit & Currency Conversion',
    category: 'other',
    description: 'Converts between measurement units, time zones and currencies.',
    aliases: ['convert units', 'currency conversion', 'currency converter', 'metric to imperial', 'time zone conversion', 'exchange rates'],
  },
  {
    slug: 'news-briefing',
    name: 'News Briefing',
    category: 'other',
    description: 'Collects the latest news on chosen topics and delivers a concise briefing.',
    aliases: ['news', 'headlines', 'news summary', 'current events', 'news alerts', 'morning briefing'],
  },
  {
    slug: 'personal-assistant',
    name: 'Personal Assistant',
    category: 'other',
    description: 'Handles everyday errands and life admin tasks on behalf of a person.',
    aliases: ['virtual assistant', 'executive assistant', 'errands', 'life admin', 'concierge'],
  },
];

// ── lookup helpers ─────────────────────────────────────────────────────────

/**
 * Normalizes a capability term for comparison: lowercase, trimmed, with any run of
 * whitespace, underscores or hyphens collapsed into a single hyphen.
 * "  Text_Summarization " and "text   summarization" both become "text-summarization".
 */
export function normalizeCapabilityTerm(term: string): string {
  return term
    .toLowerCase()
    .trim()
    .replace(/[\s_-]+/g, '-')
    .replace(/^-+|-+$/g, '');
}

/** Built once at module load. */
const capabilityBySlug = new Map<string, Capability>();
/** Normalized slug, name and every alias → capability. Built once at module load. */
const capabilityByTerm = new Map<string, Capability>();
/** Canonical slug + aliases per capability slug, returned (as copies) by expandCapabilityTerms. */
const expandedTermsBySlug = new Map<string, readonly string[]>();

for (const capability of capabilities) {
  capabilityBySlug.set(capability.slug, capability);
  expandedTermsBySlug.set(capability.slug, [capability.slug, ...capability.aliases]);
  for (const term of [capability.slug, capability.name, ...capability.aliases]) {
    const key = normalizeCapabilityTerm(term);
    // First writer wins; the tests guarantee there are no collisions between capabilities.
    if (key && !capabilityByTerm.has(key)) capabilityByTerm.set(key, capability);
  }
}

/** Finds a capability by slug, name or alias, ignoring case, whitespace, underscores and hyphens. */
export function findCapability(term: string): Capability | undefined {
  const direct = capabilityBySlug.get(term);
  if (direct) return direct;
  const key = normalizeCapabilityTerm(term);
  return key ? capabilityByTerm.get(key) : undefined;
}

/**
 * Expands a capability term into every term that should match it: the canonical slug plus all
 * aliases when the term is known, otherwise just the normalized term. Used to match a task's
 * requested capabilities against agents' capability tags (compare via normalizeCapabilityTerm).
 */
export function expandCapabilityTerms(term: string): string[] {
  const capability = findCapability(term);
  if (capability) return [...(expandedTermsBySlug.get(capability.slug) ?? [capability.slug])];
  const key = normalizeCapabilityTerm(term);
  return key ? [key] : [];
}

/** Number of capabilities per category, in catalogue category order (zero counts included). */
export function categoryCounts(): { slug: string; name: string; count: number }[] {
  const counts = new Map<string, number>();
  for (const capability of capabilities) {
    counts.set(capability.category, (counts.get(capability.category) ?? 0) + 1);
  }
  return capabilityCategories.map((category) => ({
    slug: category.slug,
    name: category.name,
    count: counts.get(category.slug) ?? 0,
  }));
}
