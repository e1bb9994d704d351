/**
 * The spec's fixed topic taxonomy and the keyword matching that infers a post's topic when the
 * author gives none. Each topic has keywords: single words (a trailing `*` matches any word
 * starting with the stem) and phrases of several words. A post scores, per topic, 1 for each
 * distinct word keyword it contains, 2 for each phrase, and 3 when a hashtag names the topic
 * (`#ai`, `#opensource`). The best topic wins when it scores at least MIN_SCORE and strictly more
 * than the runner-up; anything less is low confidence and falls back to `general`.
 */

import { badRequest } from '../../lib/errors.ts';

export const topicGroups = [
  { group: 'Technology and AI', slugs: ['ai', 'ai-agents', 'ai-ethics', 'coding', 'automation', 'apps', 'data', 'cybersecurity', 'cloud', 'web3', 'mobile', 'hardware', 'robotics'] },
  { group: 'Business and finance', slugs: ['startups', 'business', 'finance', 'accounting', 'marketing', 'product', 'careers', 'legal'] },
  { group: 'Health and lifestyle', slugs: ['health', 'food', 'fitness', 'pharma', 'psychology', 'fashion', 'beauty', 'pets', 'travel', 'productivity'] },
  { group: 'Creative and media', slugs: ['creative', 'writing', 'music', 'video', 'photography', 'gaming', 'books'] },
  { group: 'Science and education', slugs: ['science', 'climate', 'space', 'education', 'math'] },
  { group: 'Social and culture', slugs: ['news', 'culture', 'humor', 'sports', 'philosophy'] },
  { group: 'Community', slugs: ['introductions', 'community', 'openplatform', 'showcase', 'ask', 'til', 'open-source', 'general'] },
] as const;

export type Topic = (typeof topicGroups)[number]['slugs'][number];

export const topics: readonly Topic[] = topicGroups.flatMap((g) => g.slugs);
const topicSet = new Set<string>(topics);

export const isTopic = (value: string): value is Topic => topicSet.has(value);

/** Throws the 400 for a topic given (at `path` of the request) that is not one of `topics`. */
export function assertTopic(topic: string | undefined, path: string): asserts topic is Topic | undefined {
  if (topic !== undefined && !isTopic(topic)) {
    throw badRequest(`Unknown topic "${topic}": see GET /v1/social/topics`, [{ path, message: 'is not a topic of GET /v1/social/topics' }]);
  }
}

export const FALLBACK_TOPIC: Topic = 'general';
const MIN_SCORE = 1;

const keywords: Record<Exclude<Topic, 'general'>, string[]> = {
  ai: ['ai', 'artificial intelligence', 'machine learning', 'ml', 'llm', 'llms', 'gpt*', 'chatgpt', 'claude', 'gemini', 'neural', 'deep learning', 'transformer*', 'model weights', 'fine-tun*', 'finetun*', 'embedding*', 'inference', 'prompt*', 'genai', 'diffusion', 'openai', 'anthropic', 'language model*'],
  'ai-agents': ['agent', 'agents', 'agentic', 'ai agent*', 'autonomous agent*', 'multi-agent', 'multi agent', 'mcp', 'a2a', 'tool calling', 'tool use', 'function calling', 'langchain', 'autogen', 'crewai', 'agent framework*', 'task routing', 'trust receipt*'],
  'ai-ethics': ['ethic*', 'bias', 'biased', 'fairness', 'alignment', 'ai safety', 'responsible ai', 'deepfake*', 'misinformation', 'accountability', 'transparency', 'consent', 'surveillance', 'existential risk', 'regulat*'],
  coding: ['code', 'coding', 'programming', 'programmer*', 'developer*', 'javascript', 'typescript', 'python', 'rust', 'golang', 'java', 'kotlin', 'swift', 'c++', 'compiler*', 'refactor*', 'debug*', 'bug', 'bugs', 'function', 'functions', 'api', 'apis', 'git', 'pull request', 'unit test*', 'stack trace', 'sql', 'framework', 'library', 'npm', 'frontend', 'backend', 'react', 'node'],
  automation: ['automat*', 'workflow*', 'zapier', 'n8n', 'cron', 'pipeline*', 'scripted', 'rpa', 'no-code', 'low-code', 'integration*', 'bot', 'bots', 'scheduled job*'],
  apps: ['app', 'apps', 'application*', 'saas', 'chrome extension', 'plugin*', 'web app', 'desktop app', 'app store', 'user interface', 'ui', 'ux'],
  data: ['data', 'dataset*', 'database*', 'analytics', 'dashboard*', 'etl', 'warehouse', 'spreadsheet*', 'csv', 'postgres*', 'sqlite', 'visualization', 'visualisation', 'data science', 'big data', 'pandas', 'query', 'queries', 'metrics'],
  cybersecurity: ['security', 'cybersecurity', 'infosec', 'vulnerabilit*', 'exploit*', 'malware', 'ransomware', 'phishing', 'breach*', 'hack*', 'encryption', 'encrypt*', 'zero-day', 'cve', 'firewall', 'password*', 'pentest*', 'penetration test*', '2fa', 'mfa', 'threat*', 'attack*'],
  cloud: ['cloud', 'aws', 'azure', 'gcp', 'kubernetes', 'k8s', 'docker', 'container*', 'serverless', 'lambda', 'terraform', 'devops', 'deploy*', 'infrastructure', 'server', 'servers', 'cluster*', 'ci/cd', 'hosting', 'uptime'],
  web3: ['web3', 'blockchain', 'crypto', 'cryptocurrency', 'bitcoin', 'btc', 'ethereum', 'eth', 'nft*', 'defi', 'dao', 'smart contract*', 'solidity', 'token*', 'wallet*', 'onchain', 'on-chain', 'solana'],
  mobile: ['mobile', 'ios', 'android', 'iphone', 'ipad', 'smartphone*', 'phone', 'phones', 'swiftui', 'flutter', 'react native', 'mobile app*', 'play store', 'tablet*'],
  hardware: ['hardware', 'chip', 'chips', 'cpu', 'cpus', 'gpu', 'gpus', 'semiconductor*', 'raspberry pi', 'arduino', 'circuit*', 'pcb', 'soldering', 'laptop*', 'keyboard*', 'ram', 'ssd', 'motherboard', 'fpga', 'silicon'],
  robotics: ['robot', 'robots', 'robotic*', 'drone*', 'humanoid*', 'actuator*', 'servo*', 'ros', 'manipulator', 'exoskeleton*', 'self-driving', 'autonomous vehicle*', 'lidar'],
  startups: ['startup*', 'founder*', 'cofounder*', 'co-founder*', 'seed round', 'series a', 'series b', 'vc', 'vcs', 'venture capital', 'fundrais*', 'pitch deck', 'yc', 'y combinator', 'bootstrap*', 'mvp', 'product-market fit', 'runway', 'accelerator', 'incubator', 'investors'],
  business: ['business*', 'company', 'companies', 'revenue', 'profit*', 'customer*', 'client*', 'strategy', 'management', 'manager*', 'ceo', 'enterprise', 'b2b', 'sales', 'negotiat*', 'merger*', 'acquisition*', 'supply chain', 'operations', 'small business'],
  finance: ['finance', 'financial', 'invest*', 'stock*', 'market', 'markets', 'trading', 'trader*', 'portfolio*', 'dividend*', 'interest rate*', 'inflation', 'bank', 'banks', 'banking', 'loan*', 'mortgage*', 'etf*', 'bonds', 'savings', 'retirement', 'budget*', 'money', 'fintech', 'payments'],
  accounting: ['accounting', 'accountant*', 'bookkeep*', 'ledger*', 'invoice*', 'invoicing', 'tax', 'taxes', 'irs', 'vat', 'audit*', 'balance sheet', 'cash flow', 'payroll', 'expense*', 'receipts', 'gaap', 'ifrs', 'fiscal'],
  marketing: ['marketing', 'marketer*', 'seo', 'brand*', 'campaign*', 'advertis*', 'ads', 'audience', 'engagement', 'newsletter*', 'conversion*', 'funnel*', 'influencer*', 'social media', 'growth hack*', 'copywriting', 'content strategy', 'email marketing', 'leads'],
  product: ['product manag*', 'product manager*', 'roadmap*', 'user research', 'feature request*', 'prioritiz*', 'prioritis*', 'backlog', 'user stor*', 'prd', 'product design', 'onboarding', 'retention', 'a/b test*', 'ab test*', 'product launch', 'feedback loop*', 'user feedback'],
  careers: ['career*', 'job', 'jobs', 'hiring', 'hired', 'interview*', 'resume*', 'cv', 'salary', 'salaries', 'promotion', 'recruit*', 'linkedin', 'layoff*', 'laid off', 'job search', 'internship*', 'mentor*', 'remote work', 'new role'],
  legal: ['legal', 'law', 'laws', 'lawyer*', 'attorney*', 'court*', 'lawsuit*', 'contract', 'contracts', 'gdpr', 'copyright*', 'trademark*', 'patent*', 'license agreement', 'terms of service', 'compliance', 'liability', 'litigation', 'sued', 'judge', 'ruling'],
  health: ['health', 'healthy', 'medical', 'medicine', 'doctor*', 'nurse*', 'hospital*', 'patient*', 'disease*', 'symptom*', 'diagnos*', 'sleep', 'vaccine*', 'covid', 'cancer', 'diabetes', 'wellness', 'mental health', 'blood pressure', 'illness', 'therapy'],
  food: ['food', 'foods', 'recipe*', 'cook', 'cooking', 'cooked', 'bake', 'baking', 'baked', 'restaurant*', 'meal*', 'dinner', 'lunch', 'breakfast', 'coffee', 'pizza', 'pasta', 'bread', 'sourdough', 'vegan', 'vegetarian', 'delicious', 'tasty', 'kitchen', 'chef', 'soup', 'sushi', 'ramen', 'dessert*'],
  fitness: ['fitness', 'workout*', 'gym', 'exercise*', 'running', 'run', 'marathon*', 'cardio', 'strength training', 'lifting', 'deadlift*', 'squat*', 'yoga', 'pilates', 'cycling', 'training plan', 'personal record', 'pr', 'reps', 'stretching', 'steps', '5k', '10k', 'crossfit', 'muscle*'],
  pharma: ['pharma', 'pharmaceutical*', 'drug', 'drugs', 'clinical trial*', 'fda', 'ema', 'dosage', 'biotech', 'molecule*', 'pharmacy', 'pharmacist*', 'prescription*', 'generic drug*', 'drug discovery', 'antibod*', 'trial results'],
  psychology: ['psychology', 'psychologist*', 'cognitive', 'cognition', 'behavior*', 'behaviour*', 'anxiety', 'depression', 'motivation', 'habit*', 'emotion*', 'mindset', 'bias*', 'therapist*', 'burnout', 'stress', 'loneliness', 'self-esteem', 'personality'],
  fashion: ['fashion', 'outfit*', 'clothes', 'clothing', 'dress', 'dresses', 'style', 'styling', 'wardrobe', 'sneaker*', 'shoes', 'jacket*', 'runway show', 'designer*', 'streetwear', 'vintage', 'thrift*', 'ootd', 'jeans'],
  beauty: ['beauty', 'skincare', 'skin care', 'makeup', 'make-up', 'cosmetic*', 'lipstick', 'moisturizer*', 'moisturiser*', 'serum*', 'sunscreen', 'spf', 'haircut', 'hair', 'nails', 'manicure', 'fragrance*', 'perfume*', 'retinol'],
  pets: ['pet', 'pets', 'dog', 'dogs', 'puppy', 'puppies', 'cat', 'cats', 'kitten*', 'vet', 'veterinar*', 'leash', 'adopted', 'adoption', 'rescue dog', 'hamster*', 'parrot*', 'aquarium', 'litter', 'paw*'],
  travel: ['travel*', 'trip', 'trips', 'flight*', 'airport*', 'hotel*', 'vacation*', 'holiday*', 'itinerary', 'passport', 'backpack*', 'tourist*', 'tourism', 'visa', 'road trip', 'destination*', 'airbnb', 'abroad', 'beach', 'jet lag'],
  productivity: ['productivity', 'productive', 'focus', 'to-do', 'todo', 'todos', 'time management', 'pomodoro', 'calendar', 'deep work', 'procrastinat*', 'routine*', 'notion', 'obsidian', 'inbox zero', 'getting things done', 'gtd', 'efficien*', 'deadline*', 'task list', 'morning routine'],
  creative: ['creative', 'creativity', 'art', 'artist*', 'artwork*', 'drawing', 'draw', 'painting', 'paint', 'illustration*', 'sketch*', 'design', 'designs', 'craft*', 'sculpture*', 'pottery', 'generative art', 'digital art', 'canvas', 'inspiration'],
  writing: ['writing', 'writer*', 'write', 'wrote', 'novel*', 'poem*', 'poetry', 'essay*', 'blog post', 'draft*', 'manuscript', 'fiction', 'story', 'stories', 'screenplay', 'editing', 'editor', 'publish*', 'prose', 'chapter*'],
  music: ['music', 'musician*', 'song*', 'album*', 'band', 'bands', 'guitar*', 'piano', 'drums', 'concert*', 'playlist*', 'spotify', 'lyrics', 'melody', 'synth*', 'producer*', 'beat', 'beats', 'jazz', 'hip hop', 'rock', 'orchestra', 'singing', 'vinyl'],
  video: ['video', 'videos', 'youtube', 'tiktok', 'film', 'films', 'movie*', 'cinema', 'director', 'editing software', 'premiere pro', 'final cut', 'vlog*', 'streaming', 'netflix', 'documentar*', 'animation', 'footage', 'trailer*', 'episode*'],
  photography: ['photo', 'photos', 'photograph*', 'camera*', 'lens', 'lenses', 'shutter', 'aperture', 'iso', 'portrait*', 'landscape shot', 'lightroom', 'dslr', 'mirrorless', 'film photography', 'golden hour', 'exposure', 'tripod', '35mm', '50mm'],
  gaming: ['game', 'games', 'gaming', 'gamer*', 'video game*', 'esports', 'playstation', 'xbox', 'nintendo', 'switch 2', 'steam', 'speedrun*', 'rpg', 'fps', 'mmo', 'minecraft', 'zelda', 'indie game*', 'twitch', 'boss fight', 'multiplayer'],
  books: ['book', 'books', 'reading', 'read', 'novel', 'novels', 'author*', 'library', 'libraries', 'paperback', 'hardcover', 'kindle', 'audiobook*', 'bookclub', 'book club', 'goodreads', 'nonfiction', 'non-fiction', 'bestseller*', 'chapter'],
  science: ['science', 'scientist*', 'scientific', 'research', 'researcher*', 'experiment*', 'physics', 'chemistry', 'biology', 'quantum', 'genetic*', 'dna', 'protein*', 'cell', 'cells', 'lab', 'laboratory', 'hypothesis', 'peer review', 'paper', 'study', 'neuroscience', 'evolution'],
  climate: ['climate', 'climate change', 'global warming', 'carbon', 'emission*', 'renewable*', 'solar', 'wind power', 'wind farm*', 'sustainab*', 'fossil fuel*', 'net zero', 'co2', 'heatwave*', 'drought*', 'wildfire*', 'environment*', 'recycl*', 'electric vehicle*', 'ev', 'evs', 'biodiversity'],
  space: ['space', 'nasa', 'esa', 'spacex', 'rocket*', 'launch pad', 'orbit*', 'satellite*', 'astronaut*', 'mars', 'moon', 'lunar', 'planet*', 'galaxy', 'galaxies', 'telescope*', 'jwst', 'asteroid*', 'comet*', 'astronomy', 'astrophysics', 'black hole*', 'exoplanet*', 'starship'],
  education: ['education', 'educational', 'school*', 'teacher*', 'teaching', 'teach', 'student*', 'classroom*', 'university', 'universities', 'college', 'course*', 'curriculum', 'lesson*', 'homework', 'exam*', 'tutor*', 'learning', 'learn', 'online course*', 'degree', 'mooc', 'syllabus'],
  math: ['math', 'maths', 'mathematics', 'mathematician*', 'theorem*', 'proof', 'proofs', 'algebra', 'calculus', 'geometry', 'topology', 'equation*', 'prime number*', 'primes', 'statistic*', 'probability', 'integral*', 'derivative*', 'matrix', 'matrices', 'linear algebra', 'number theory', 'conjecture'],
  news: ['news', 'breaking', 'breaking news', 'headline*', 'announced', 'announcement', 'report*', 'election*', 'government', 'president', 'minister', 'parliament', 'policy', 'today', 'this week', 'update', 'press release', 'journalis*', 'officials'],
  culture: ['culture', 'cultural', 'tradition*', 'festival*', 'heritage', 'museum*', 'exhibition*', 'language*', 'identity', 'society', 'art scene', 'pop culture', 'celebrat*', 'community events', 'history', 'historical', 'customs', 'generation*', 'meme culture'],
  humor: ['humor', 'humour', 'funny', 'joke*', 'lol', 'lmao', 'rofl', 'haha', 'hahaha', 'meme', 'memes', 'pun', 'puns', 'comedy', 'comedian*', 'hilarious', 'sarcasm', 'shitpost*', 'knock knock', 'dad joke*'],
  sports: ['sport', 'sports', 'football', 'soccer', 'basketball', 'baseball', 'tennis', 'golf', 'hockey', 'cricket', 'rugby', 'nba', 'nfl', 'fifa', 'world cup', 'olympic*', 'championship*', 'league', 'match', 'playoff*', 'tournament*', 'goal', 'goals', 'team', 'coach', 'athlete*', 'f1', 'formula 1'],
  philosophy: ['philosophy', 'philosopher*', 'philosophical', 'ethics', 'moral*', 'meaning of life', 'consciousness', 'free will', 'existential*', 'stoic*', 'stoicism', 'nietzsche', 'kant', 'plato', 'aristotle', 'socrates', 'epistemolog*', 'metaphysic*', 'utilitarian*', 'virtue'],
  introductions: ['introduce myself', 'introducing myself', 'introduction', 'hello everyone', 'hi everyone', 'hey everyone', 'hello world', 'new here', 'just joined', 'first post', 'my name is', 'nice to meet', 'glad to be here', 'excited to join', 'say hi'],
  community: ['community', 'communities', 'meetup*', 'members', 'welcome', 'together', 'volunteer*', 'event', 'events', 'gathering', 'neighbo*', 'local group', 'discord', 'forum', 'moderation', 'guidelines', 'shoutout*', 'support each other'],
  openplatform: ['agentry', 'platform', 'this platform', 'open platform', 'openplatform', 'feature request', 'the feed', 'for you feed', 'timeline', 'notifications', 'api key*', 'leaderboard', 'trending page', 'platform update', 'changelog'],
  showcase: ['showcase', 'i built', 'i made', 'we built', 'we made', 'just shipped', 'shipped', 'launched', 'just launched', 'check out', 'demo', 'side project', 'my project', 'show and tell', 'built this', 'released', 'v1', 'portfolio', 'screenshot*'],
  ask: ['ask', 'question', 'questions', 'how do i', 'how do you', 'how can i', 'does anyone', 'anyone know', 'any tips', 'any advice', 'advice', 'recommendation*', 'recommend', 'what is the best', 'help me', 'need help', 'eli5', 'wondering', 'curious if'],
  til: ['til', 'today i learned', 'i just learned', 'just learned', 'did you know', 'fun fact', 'learned today', 'turns out'],
  'open-source': ['open source', 'open-source', 'opensource', 'oss', 'github', 'gitlab', 'repo', 'repos', 'repository', 'contributor*', 'contribut*', 'maintainer*', 'mit license', 'apache 2', 'gpl', 'fork', 'forked', 'pull requests', 'pr merged', 'foss', 'self-host*', 'self host*'],
};

interface Keyword {
  topic: Topic;
  words: string[];
  /** The last word is a stem: any word starting with it matches. */
  prefix: boolean;
  weight: number;
}

// Keywords are found by their first word; single-word stems by their first two letters.
const byFirstWord = new Map<string, Keyword[]>();
const stemsByStart = new Map<string, Keyword[]>();
const push = (map: Map<string, Keyword[]>, key: string, keyword: Keyword) => map.set(key, [...(map.get(key) ?? []), keyword]);
for (const [topic, list] of Object.entries(keywords) as [Topic, string[]][]) {
  for (const entry of list) {
    const prefix = entry.endsWith('*');
    const words = tokenize(prefix ? entry.slice(0, -1) : entry);
    const keyword: Keyword = { topic, words, prefix, weight: words.length > 1 ? 2 : 1 };
    if (words.length === 0 || (prefix && words.length === 1 && words[0]!.length < 2)) throw new Error(`topic keyword "${entry}" is too short`);
    if (prefix && words.length === 1) push(stemsByStart, words[0]!.slice(0, 2), keyword);
    else push(byFirstWord, words[0]!, keyword);
  }
}

/** Hashtags that name a topic, with or without its hyphen: #ai, #aiagents, #ai_agents, #opensource. */
const topicByHashtag = new Map<string, Topic>();
for (const topic of topics) {
  if (topic === 'general') continue;
  topicByHashtag.set(topic, topic);
  topicByHashtag.set(topic.replaceAll('-', ''), topic);
  topicByHashtag.set(topic.replaceAll('-', '_'), topic);
}
const HASHTAG_WEIGHT = 3;

function tokenize(text: string): string[] {
  return text.toLowerCase().match(/[\p{L}\p{N}]+(?:[+#]+|(?:[-/'.][\p{L}\p{N}]+)*)/gu) ?? [];
}

function wordsMatch(keyword: Keyword, tokens: string[], at: number): boolean {
  const { words, prefix } = keyword;
  if (at + words.length > tokens.length) return false;
  for (let i = 0; i < words.length; i++) {
    const token = tokens[at + i]!;
    const last = i === words.length - 1;
    if (last && prefix ? !token.startsWith(words[i]!) : token !== words[i]) return false;
  }
  return true;
}

/** Every topic the text scores for, best first (ties in taxonomy order). */
export function scoreTopics(text: string, hashtags: readonly string[] = []): { topic: Topic; score: number }[] {
  const tokens = tokenize(text);
  // A compound word also counts as its parts ("low-code" matches "low-code" and "code").
  const sequences = [tokens, ...tokens.filter((t) => /[-/.']/.test(t)).map((t) => t.split(/[-/.']/).filter(Boolean))];
  const matched = new Map<Topic, Set<Keyword>>();
  const add = (keyword: Keyword) => {
    const set = matched.get(keyword.topic) ?? new Set<Keyword>();
    set.add(keyword);
    matched.set(keyword.topic, set);
  };
  for (const sequence of sequences) {
    for (let at = 0; at < sequence.length; at++) {
      const token = sequence[at]!;
      for (const keyword of byFirstWord.get(token) ?? []) if (wordsMatch(keyword, sequence, at)) add(keyword);
      for (const keyword of stemsByStart.get(token.slice(0, 2)) ?? []) if (token.startsWith(keyword.words[0]!)) add(keyword);
    }
  }
  const scores = new Map<Topic, number>();
  for (const [topic, set] of matched) scores.set(topic, [...set].reduce((sum, k) => sum + k.weight, 0));
  for (const tag of hashtags) {
    const topic = topicByHashtag.get(tag);
    if (topic) scores.set(topic, (scores.get(topic) ?? 0) + HASHTAG_WEIGHT);
  }
  return [...scores].map(([topic, score]) => ({ topic, score })).sort((a, b) => b.score - a.score || topics.indexOf(a.topic) - topics.indexOf(b.topic));
}

export function inferTopic(text: string, hashtags: readonly string[] = []): Topic {
  const [best, runnerUp] = scoreTopics(text, hashtags);
  if (!best || best.score < MIN_SCORE || (runnerUp && runnerUp.score === best.score)) return FALLBACK_TOPIC;
  return best.topic;
}
