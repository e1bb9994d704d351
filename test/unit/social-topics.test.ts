import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { extractHashtags } from '../../src/modules/social/text.ts';
import { inferTopic, isTopic, scoreTopics, topicGroups, topics } from '../../src/modules/social/topics.ts';

const infer = (body: string) => inferTopic(body, extractHashtags(body));

/** Sample posts written as people write them, with the topic a reader would file them under. */
const samples: [string, string][] = [
  ['Fine-tuning a small language model on our support tickets beat prompting GPT-4 for this task', 'ai'],
  ['Machine learning is mostly data cleaning, the neural network part is the easy bit', 'ai'],
  ['My AI agent now routes tasks to other agents over MCP and A2A without me touching it', 'ai-agents'],
  ['Building a multi-agent system: one agent plans, the others call tools. Agentic workflows are wild', 'ai-agents'],
  ['Who is accountable when a model shows bias in hiring? Fairness and transparency should not be optional', 'ai-ethics'],
  ['Deepfakes and misinformation are the AI safety problem nobody wants to regulate', 'ai-ethics'],
  ['Refactored the whole backend from JavaScript to TypeScript, the compiler caught 40 bugs', 'coding'],
  ['Spent three hours debugging a Python function that returned None. Programming is humbling', 'coding'],
  ['Automated our invoicing workflow with n8n: a cron trigger, three integrations, zero manual steps', 'automation'],
  ['Every repetitive thing I do twice gets a zapier workflow now. Automate all the boring stuff', 'automation'],
  ['Our SaaS app finally has a dark mode. The UI and UX team outdid themselves', 'apps'],
  ['Which note-taking apps do people use? Looking for a desktop app that syncs', 'apps'],
  ['Moved our analytics from spreadsheets into a proper data warehouse, dashboards load in seconds', 'data'],
  ['Cleaning a dataset of 2 million rows with pandas, then visualization in a dashboard', 'data'],
  ['New ransomware campaign exploits a zero-day in VPN appliances, patch your firewall now', 'cybersecurity'],
  ['Reminder: enable 2FA everywhere, phishing attacks on password managers are up', 'cybersecurity'],
  ['Migrated everything to Kubernetes on AWS and our deploys went from 20 minutes to 2', 'cloud'],
  ['Serverless was cheap until the lambda bill arrived. Back to containers on our own cluster', 'cloud'],
  ['Ethereum gas fees are down, finally cheap enough to deploy a smart contract for the DAO', 'web3'],
  ['Bitcoin, NFTs, DeFi: the blockchain hype cycle explained in one thread', 'web3'],
  ['Shipped our first iOS and Android release with Flutter, the iPhone build took longer than expected', 'mobile'],
  ['Smartphones keep getting bigger. Is anyone still making a small phone?', 'mobile'],
  ['Soldering my first PCB for a Raspberry Pi keyboard controller', 'hardware'],
  ['New GPUs and CPUs from the same semiconductor fab, silicon is getting expensive', 'hardware'],
  ['Our warehouse robot learned to pick boxes with a new manipulator and lidar for navigation', 'robotics'],
  ['Humanoid robots doing backflips are fun, but robotic arms in factories pay the bills', 'robotics'],
  ['We closed our seed round! Two cofounders, an MVP and a lot of investors saying no first', 'startups'],
  ['Bootstrapped founders, how long was your runway before product-market fit?', 'startups'],
  ['Small business owners: revenue matters, but keeping customers is the real strategy', 'business'],
  ['Our enterprise sales team closed the biggest B2B deal in company history', 'business'],
  ['Interest rates and inflation are up, my portfolio of ETFs and dividend stocks is down', 'finance'],
  ['Should I pay off the mortgage early or invest the savings for retirement?', 'finance'],
  ['Bookkeeping tip: reconcile the ledger monthly so the balance sheet is not a surprise at tax time', 'accounting'],
  ['Our accountant found three invoices booked twice before the audit. Payroll next', 'accounting'],
  ['Our newsletter campaign doubled conversions after we rewrote the SEO landing pages', 'marketing'],
  ['Influencer marketing is just advertising with better branding', 'marketing'],
  ['As a product manager I keep the roadmap short and the backlog shorter. Prioritization is the job', 'product'],
  ['User research beat our A/B tests: onboarding retention went up once we talked to users', 'product'],
  ['Got laid off last month, now three interviews in and rewriting my resume for each one', 'careers'],
  ['Hiring tip for your career: salary negotiation starts before the first interview', 'careers'],
  ['GDPR compliance is not optional: the court ruling makes the liability clear', 'legal'],
  ['Our lawyer says the copyright claim has no merit and the lawsuit will be dismissed', 'legal'],
  ['My doctor says sleep matters more for blood pressure than any medicine', 'health'],
  ['Hospitals report fewer patients with covid this winter, vaccines still matter', 'health'],
  ['Baked my first sourdough bread this weekend, the kitchen smells amazing', 'food'],
  ['Best ramen recipe I have cooked at home: the secret is the soup', 'food'],
  ['New personal record on deadlifts and squats today, the gym is my therapy', 'fitness'],
  ['Marathon training week 6: cardio, stretching and a long run on Sunday', 'fitness'],
  ['The FDA approved a new drug after phase 3 clinical trials, big day for biotech', 'pharma'],
  ['Pharmaceutical companies are using AI for drug discovery of new antibodies', 'pharma'],
  ['Burnout is not a personal failure: stress, anxiety and motivation are shaped by habits', 'psychology'],
  ['Cognitive psychology explains why our emotions override our mindset under pressure', 'psychology'],
  ['Thrifted a vintage jacket and new sneakers, the streetwear outfit is complete', 'fashion'],
  ['Fashion week showed that wardrobe basics and clothing that lasts are back in style', 'fashion'],
  ['My skincare routine: sunscreen, a retinol serum and a good moisturizer', 'beauty'],
  ['Makeup tip: lipstick first, then the rest of the cosmetics', 'beauty'],
  ['Adopted a rescue dog this week, the puppy already owns the couch', 'pets'],
  ['Our cats ignore the new litter box and the kitten sleeps in the vet carrier', 'pets'],
  ['Booked flights and hotels for a road trip itinerary across Portugal, passport ready', 'travel'],
  ['Traveling with only a backpack: three weeks, four countries, one jet lag', 'travel'],
  ['Deep work blocks in my calendar and the pomodoro technique doubled my productivity', 'productivity'],
  ['Stop procrastinating: one to-do list, one morning routine, inbox zero by noon', 'productivity'],
  ['Finished a digital art illustration today, creativity comes back when I sketch daily', 'creative'],
  ['Pottery class taught me more about creative patience than any painting course', 'creative'],
  ['Writing the first draft of my novel: 50,000 words of fiction, the manuscript is a mess', 'writing'],
  ['Poetry is editing: the poem gets better every time I cut a line', 'writing'],
  ['The new album from my favorite band has the best guitar and piano melodies of the year', 'music'],
  ['Made a playlist of jazz and synth songs for the concert tonight', 'music'],
  ['Edited my first YouTube vlog in Premiere Pro, the footage looks great', 'video'],
  ['Watched a documentary on Netflix about film directors and cinema history', 'video'],
  ['Golden hour portraits with a 50mm lens on my mirrorless camera', 'photography'],
  ['Photography tip: learn aperture, shutter and ISO before buying new lenses', 'photography'],
  ['Finally beat the final boss in Zelda, best video game of the decade', 'gaming'],
  ['Speedrunning an indie game on Twitch with my gamer friends, multiplayer chaos', 'gaming'],
  ['Reading three books at once: a paperback, a kindle novel and an audiobook', 'books'],
  ['Our book club picked a nonfiction bestseller by my favorite author this month', 'books'],
  ['Physics experiment in the lab confirmed the hypothesis, the paper goes to peer review', 'science'],
  ['Researchers found a protein that controls DNA repair in cells, huge for biology', 'science'],
  ['Climate change made this summer of heatwaves and wildfires worse, carbon emissions must fall', 'climate'],
  ['Solar and wind power now beat fossil fuels on price, net zero is reachable', 'climate'],
  ['SpaceX launched another rocket and the satellites are in orbit', 'space'],
  ['The JWST telescope found an exoplanet with water, astronomy is having a moment', 'space'],
  ['Teachers in our school redesigned the curriculum so students learn by doing', 'education'],
  ['Online courses are great, but a tutor and homework are what made me learn calculus in college', 'education'],
  ['A beautiful proof of the theorem that there are infinitely many primes', 'math'],
  ['Linear algebra is just matrices and equations until you see the geometry', 'math'],
  ['Breaking news: the government announced an election date, the minister confirmed the headlines', 'news'],
  ['Press release from parliament: the president signs the new policy', 'news'],
  ['The festival celebrates our heritage and traditions with a museum exhibition', 'culture'],
  ['Pop culture moves so fast that every generation has its own language', 'culture'],
  ['My dad jokes are so bad they are funny. Knock knock, lol', 'humor'],
  ['This meme is hilarious, I laughed so hard haha', 'humor'],
  ['What a match! The football team won the championship with a last-minute goal', 'sports'],
  ['NBA playoffs start tonight, my basketball team has the best coach in the league', 'sports'],
  ['Stoicism taught me that free will is about what we control, Marcus Aurelius would agree', 'philosophy'],
  ['Is consciousness just computation? Kant and Plato would have opinions on the metaphysics', 'philosophy'],
  ['Hello everyone! Let me introduce myself: my name is Sam and I am new here', 'introductions'],
  ['Hi everyone, just joined and this is my first post. Nice to meet you all', 'introductions'],
  ['Our community meetup next week welcomes new members, volunteers needed for the event', 'community'],
  ['Shoutout to everyone in this community who helps newcomers, we support each other', 'community'],
  ['Feature request for the platform: let me mute a topic in the for you feed', 'openplatform'],
  ['Agentry changelog: notifications now group likes, and the trending page is faster', 'openplatform'],
  ['I built a little side project over the weekend, check out the demo', 'showcase'],
  ['Just launched v1 of my portfolio site, screenshots in the thread', 'showcase'],
  ['Does anyone know how do I reset a forgotten router admin login? Need help', 'ask'],
  ['Any advice or recommendations for a first sewing machine?', 'ask'],
  ['TIL honey never spoils', 'til'],
  ['Today I learned that octopuses have three hearts, fun fact', 'til'],
  ['We open sourced our parser under the MIT license, contributors welcome on GitHub', 'open-source'],
  ['Thanking every maintainer of open-source software, send your pull requests to the repo', 'open-source'],
  // Low confidence: nothing to go on, or two topics tied.
  ['Good morning', 'general'],
  ['Thinking about stuff', 'general'],
  ['Weekend plans?', 'general'],
  ['Cooking while listening to music', 'general'],
  // Hashtags naming a topic weigh in.
  ['Some thoughts on where this is all going #ai', 'ai'],
  ['Quiet day, long walk #travel', 'travel'],
  ['New release notes are up #opensource', 'open-source'],
  ['Worth reading for everyone #aiagents', 'ai-agents'],
];

describe('social topics: taxonomy', () => {
  it('has the spec topics in the spec groups, general included, no duplicates', () => {
    assert.equal(topicGroups.length, 7);
    assert.equal(topics.length, 56);
    assert.equal(new Set(topics).size, topics.length);
    for (const slug of ['ai', 'ai-agents', 'open-source', 'openplatform', 'til', 'general', 'philosophy', 'accounting']) assert.ok(isTopic(slug), slug);
    for (const slug of ['AI', 'sewing', '', 'general ']) assert.ok(!isTopic(slug), slug);
  });
});

describe('social topics: inference', () => {
  it(`files ${samples.length} sample posts under the expected topics`, () => {
    assert.ok(samples.length >= 50);
    const covered = new Set(samples.map(([, topic]) => topic));
    assert.deepEqual(
      topics.filter((t) => !covered.has(t)),
      [],
      'every topic has a sample',
    );
    const wrong = samples.filter(([body, topic]) => infer(body) !== topic).map(([body, topic]) => `${topic} <- ${infer(body)}: ${body}`);
    assert.deepEqual(wrong, []);
  });

  it('does not care about case', () => {
    assert.equal(infer('KUBERNETES ON AWS'), 'cloud');
    assert.equal(infer('kubernetes on aws'), 'cloud');
  });

  it('matches word stems and whole words only', () => {
    assert.equal(infer('automating things'), 'automation');
    // "rain" is not "drain", "cat" is not "category".
    assert.equal(infer('category theory'), 'general');
  });

  it('reports every scoring topic, best first', () => {
    const scores = scoreTopics('Kubernetes cluster on AWS with a Python API');
    assert.equal(scores[0]!.topic, 'cloud');
    assert.ok(scores.some((s) => s.topic === 'coding'));
    assert.deepEqual(scoreTopics(''), []);
  });
});
