import { DAY_MS } from '../../core/clock.js';
import Database from 'better-sqlite3';

// Everything below derives from this seed, so every run builds the identical database.
const SEED = 0x5eed_b00c;

const START_MS = Date.UTC(2024, 0, 1);
const END_MS = Date.UTC(2026, 5, 30);
const BACKLIST_START_MS = Date.UTC(1998, 0, 1);

const AUTHOR_COUNT = 80;
const BOOK_COUNT = 240;
const CUSTOMER_COUNT = 450;
const ORDER_COUNT = 1300;
const FREE_SHIPPING_FROM_CENTS = 3500;
const SHIPPING_CENTS = 499;

const SCHEMA = `
CREATE TABLE publishers (
  id INTEGER PRIMARY KEY,
  name TEXT NOT NULL UNIQUE,
  country TEXT NOT NULL, -- ISO 3166-1 alpha-2
  founded_year INTEGER NOT NULL CHECK (founded_year BETWEEN 1700 AND 2026)
);

CREATE TABLE genres (
  id INTEGER PRIMARY KEY,
  name TEXT NOT NULL UNIQUE
);

CREATE TABLE authors (
  id INTEGER PRIMARY KEY,
  first_name TEXT NOT NULL,
  last_name TEXT NOT NULL,
  birth_year INTEGER CHECK (birth_year BETWEEN 1900 AND 2010), -- NULL when unknown
  country TEXT NOT NULL,
  UNIQUE (last_name, first_name)
);

CREATE TABLE books (
  id INTEGER PRIMARY KEY,
  isbn TEXT NOT NULL UNIQUE CHECK (length(isbn) = 13), -- ISBN-13 without hyphens
  title TEXT NOT NULL,
  publisher_id INTEGER NOT NULL REFERENCES publishers (id),
  genre_id INTEGER NOT NULL REFERENCES genres (id),
  format TEXT NOT NULL CHECK (format IN ('hardcover', 'paperback')),
  pages INTEGER NOT NULL CHECK (pages > 0),
  price_cents INTEGER NOT NULL CHECK (price_cents > 0), -- list price in US cents
  published_on TEXT NOT NULL -- YYYY-MM-DD
);
CREATE INDEX books_publisher_id_idx ON books (publisher_id);
CREATE INDEX books_genre_id_idx ON books (genre_id);
CREATE INDEX books_title_idx ON books (title);

CREATE TABLE book_authors (
  book_id INTEGER NOT NULL REFERENCES books (id) ON DELETE CASCADE,
  author_id INTEGER NOT NULL REFERENCES authors (id),
  author_position INTEGER NOT NULL CHECK (author_position >= 1), -- 1 = lead author
  PRIMARY KEY (book_id, author_id)
);
CREATE INDEX book_authors_author_id_idx ON book_authors (author_id);

CREATE TABLE customers (
  id INTEGER PRIMARY KEY,
  email TEXT NOT NULL UNIQUE,
  first_name TEXT NOT NULL,
  last_name TEXT NOT NULL,
  city TEXT NOT NULL,
  country TEXT NOT NULL, -- ISO 3166-1 alpha-2
  joined_on TEXT NOT NULL, -- YYYY-MM-DD
  marketing_opt_in INTEGER NOT NULL DEFAULT 0 CHECK (marketing_opt_in IN (0, 1))
);
CREATE INDEX customers_name_idx ON customers (last_name, first_name);
CREATE INDEX customers_country_idx ON customers (country);

CREATE TABLE warehouses (
  id INTEGER PRIMARY KEY,
  code TEXT NOT NULL UNIQUE,
  city TEXT NOT NULL,
  country TEXT NOT NULL
);

CREATE TABLE inventory (
  warehouse_id INTEGER NOT NULL REFERENCES warehouses (id),
  book_id INTEGER NOT NULL REFERENCES books (id) ON DELETE CASCADE,
  quantity INTEGER NOT NULL CHECK (quantity >= 0),
  reorder_level INTEGER NOT NULL CHECK (reorder_level >= 0),
  PRIMARY KEY (warehouse_id, book_id)
);
CREATE INDEX inventory_book_id_idx ON inventory (book_id);

CREATE TABLE orders (
  id INTEGER PRIMARY KEY,
  customer_id INTEGER NOT NULL REFERENCES customers (id),
  warehouse_id INTEGER NOT NULL REFERENCES warehouses (id), -- ships from
  ordered_at TEXT NOT NULL, -- UTC, YYYY-MM-DD HH:MM:SS
  status TEXT NOT NULL
    CHECK (status IN ('pending', 'paid', 'shipped', 'delivered', 'cancelled', 'refunded')),
  shipping_cents INTEGER NOT NULL CHECK (shipping_cents >= 0)
);
CREATE INDEX orders_customer_id_idx ON orders (customer_id);
CREATE INDEX orders_warehouse_id_idx ON orders (warehouse_id);
CREATE INDEX orders_ordered_at_idx ON orders (ordered_at);
CREATE INDEX orders_status_idx ON orders (status);

CREATE TABLE order_items (
  order_id INTEGER NOT NULL REFERENCES orders (id) ON DELETE CASCADE,
  book_id INTEGER NOT NULL REFERENCES books (id),
  quantity INTEGER NOT NULL CHECK (quantity > 0),
  unit_price_cents INTEGER NOT NULL CHECK (unit_price_cents >= 0), -- price actually charged
  PRIMARY KEY (order_id, book_id)
);
CREATE INDEX order_items_book_id_idx ON order_items (book_id);

CREATE TABLE reviews (
  id INTEGER PRIMARY KEY,
  book_id INTEGER NOT NULL REFERENCES books (id) ON DELETE CASCADE,
  customer_id INTEGER NOT NULL REFERENCES customers (id),
  rating INTEGER NOT NULL CHECK (rating BETWEEN 1 AND 5),
  body TEXT, -- NULL for star-only ratings
  created_at TEXT NOT NULL, -- UTC, YYYY-MM-DD HH:MM:SS
  UNIQUE (book_id, customer_id)
);
CREATE INDEX reviews_customer_id_idx ON reviews (customer_id);

CREATE VIEW order_totals AS
SELECT
  o.id AS order_id,
  o.customer_id,
  o.ordered_at,
  o.status,
  SUM(oi.quantity) AS item_count,
  SUM(oi.quantity * oi.unit_price_cents) AS subtotal_cents,
  o.shipping_cents,
  SUM(oi.quantity * oi.unit_price_cents) + o.shipping_cents AS total_cents
FROM orders o
JOIN order_items oi ON oi.order_id = o.id
GROUP BY o.id;

-- Sales exclude cancelled and refunded orders.
CREATE VIEW book_sales AS
SELECT
  b.id AS book_id,
  b.title,
  g.name AS genre,
  COALESCE(s.units_sold, 0) AS units_sold,
  COALESCE(s.revenue_cents, 0) AS revenue_cents,
  COALESCE(r.review_count, 0) AS review_count,
  r.avg_rating
FROM books b
JOIN genres g ON g.id = b.genre_id
LEFT JOIN (
  SELECT oi.book_id, SUM(oi.quantity) AS units_sold, SUM(oi.quantity * oi.unit_price_cents) AS revenue_cents
  FROM order_items oi
  JOIN orders o ON o.id = oi.order_id
  WHERE o.status NOT IN ('cancelled', 'refunded')
  GROUP BY oi.book_id
) s ON s.book_id = b.id
LEFT JOIN (
  SELECT book_id, COUNT(*) AS review_count, ROUND(AVG(rating), 2) AS avg_rating
  FROM reviews
  GROUP BY book_id
) r ON r.book_id = b.id;
`;

const PUBLISHERS = [
  ['Tidewater Press', 'GB'],
  ['Harrow & Lane', 'GB'],
  ['Blue Heron Books', 'US'],
  ['Northgate Publishing', 'US'],
  ['Copperleaf', 'CA'],
  ['Millrace Editions', 'IE'],
  ['Quarto Hill', 'US'],
  ['Saltbox Press', 'AU'],
  ['Larkspur House', 'GB'],
  ['Ember & Oak', 'NZ'],
  ['Fieldstone Books', 'US'],
  ['Pennant Press', 'NL'],
] as const;

const GENRES = [
  'Literary Fiction',
  'Crime',
  'Science Fiction',
  'Fantasy',
  'Historical Fiction',
  'Romance',
  'Biography',
  'History',
  'Popular Science',
  'Travel',
  'Cookery',
  'Poetry',
] as const;

const WAREHOUSES = [
  ['RDG', 'Reading', 'GB'],
  ['RTM', 'Rotterdam', 'NL'],
  ['EWR', 'Newark', 'US'],
  ['MEL', 'Melbourne', 'AU'],
] as const;

type WarehouseCode = (typeof WAREHOUSES)[number][0];

interface Region {
  country: string;
  warehouse: WarehouseCode;
  weight: number;
  cities: readonly string[];
}

const REGIONS: readonly Region[] = [
  { country: 'GB', warehouse: 'RDG', weight: 34, cities: ['London', 'Manchester', 'Bristol', 'Leeds', 'Norwich'] },
  { country: 'IE', warehouse: 'RDG', weight: 5, cities: ['Dublin', 'Cork', 'Galway'] },
  { country: 'NL', warehouse: 'RTM', weight: 7, cities: ['Amsterdam', 'Utrecht', 'Rotterdam'] },
  { country: 'DE', warehouse: 'RTM', weight: 8, cities: ['Berlin', 'Hamburg', 'Munich', 'Cologne'] },
  { country: 'FR', warehouse: 'RTM', weight: 5, cities: ['Paris', 'Lyon', 'Bordeaux'] },
  { country: 'US', warehouse: 'EWR', weight: 26, cities: ['New York', 'Boston', 'Chicago', 'Portland', 'Austin'] },
  { country: 'CA', warehouse: 'EWR', weight: 6, cities: ['Toronto', 'Montreal', 'Vancouver'] },
  { country: 'AU', warehouse: 'MEL', weight: 7, cities: ['Melbourne', 'Sydney', 'Brisbane'] },
  { country: 'NZ', warehouse: 'MEL', weight: 2, cities: ['Auckland', 'Wellington'] },
];

const FIRST_NAMES = [
  'Ada', 'Amara', 'Ben', 'Carmen', 'Chloe', 'Daniel', 'Elif', 'Erik', 'Fatima', 'Felix',
  'Grace', 'Hamid', 'Hannah', 'Ines', 'Isaac', 'Jonas', 'Julia', 'Kofi', 'Lena', 'Leo',
  'Maya', 'Mei', 'Nadia', 'Noah', 'Olivia', 'Oscar', 'Priya', 'Rafael', 'Rosa', 'Samuel',
  'Sofia', 'Tomas', 'Una', 'Viktor', 'Wren', 'Yusuf', 'Zoe', 'Aoife', 'Marcus', 'Ingrid',
] as const;

const LAST_NAMES = [
  'Abbott', 'Achebe', 'Bauer', 'Byrne', 'Castillo', 'Chen', 'Dalton', 'Dubois', 'Eriksen', 'Fischer',
  'Gallagher', 'Haddad', 'Hughes', 'Ibrahim', 'Jansen', 'Kaur', 'Kowalski', 'Larsen', 'Lindqvist', 'Marsh',
  "O'Connell", 'Okafor', 'Patel', 'Quinn', 'Rossi', 'Santos', 'Schmidt', 'Silva', 'Tanaka', 'Thorne',
  'Varga', 'Walsh', 'Whitfield', 'Yamamoto', 'Young', 'Zielinski', 'Moreau', 'Novak', 'Reyes', 'Holm',
] as const;

const AUTHOR_COUNTRIES = ['GB', 'US', 'IE', 'CA', 'AU', 'NZ', 'NG', 'IN', 'DE', 'FR', 'JP', 'SE'] as const;

const TITLE_ADJECTIVES = [
  'Quiet', 'Last', 'Hidden', 'Paper', 'Glass', 'Salt', 'Burning', 'Distant', 'Silver', 'Borrowed',
  'Patient', 'Northern', 'Lost', 'Small', 'Long', 'Winter', 'Broken', 'Golden', 'Secret', 'Drowned',
] as const;

const TITLE_NOUNS = [
  'Lighthouse', 'Orchard', 'Cartographer', 'Harbour', 'Archive', 'Garden', 'Cipher', 'River', 'Tide',
  'Lantern', 'Atlas', 'Keeper', 'Silence', 'Inheritance', 'Bridge', 'Meridian', 'Compass', 'Library',
  'Fox', 'Kingdom', 'Island', 'Alphabet', 'Weather', 'Kitchen', 'Comet',
] as const;

const TITLE_PLACES = [
  'Ashford', 'Lisbon', 'the Fens', 'Kestrel Bay', 'Marrow Lane', 'the North Sea', 'Tangier', 'Hollowmere',
  'Vienna', 'the Saltmarsh', 'Oxbow', 'Kyoto',
] as const;

const TITLE_TEMPLATES: readonly ((random: Random) => string)[] = [
  (r) => `The ${r.pick(TITLE_ADJECTIVES)} ${r.pick(TITLE_NOUNS)}`,
  (r) => `The ${r.pick(TITLE_NOUNS)} of ${r.pick(TITLE_PLACES)}`,
  (r) => `A ${r.pick(TITLE_ADJECTIVES)} ${r.pick(TITLE_NOUNS)} in ${r.pick(TITLE_PLACES)}`,
  (r) => `${r.pick(TITLE_ADJECTIVES)} ${r.pick(TITLE_NOUNS)}`,
  (r) => `The ${r.pick(LAST_NAMES)} ${r.pick(TITLE_NOUNS)}`,
];

const REVIEW_SENTENCES = {
  positive: [
    'Could not put it down.',
    'Beautifully written.',
    'Already bought a second copy for a friend.',
    'The ending stayed with me for days.',
    'Arrived quickly and well packed.',
    'One of the best books I have read this year.',
  ],
  mixed: [
    'Slow start but worth it.',
    'Good, though the middle drags.',
    'Not the strongest book by this author.',
    'Some lovely passages, some filler.',
    'Fine for a long train journey.',
  ],
  negative: [
    'Gave up halfway.',
    'Did not live up to the hype.',
    'The print quality was poor.',
    'The characters felt flat.',
    'Arrived with a damaged cover.',
  ],
} as const;

type OrderStatus = 'pending' | 'paid' | 'shipped' | 'delivered' | 'cancelled' | 'refunded';

interface Book {
  id: number;
  priceCents: number;
  publishedMs: number;
  quality: number; // mean star rating readers give this book
}

interface Customer {
  id: number;
  joinedMs: number;
  warehouseId: number;
}

interface Purchase {
  customerId: number;
  book: Book;
  orderedMs: number;
}

/** mulberry32: a tiny, fast 32-bit PRNG, plenty for demo data. */
class Random {
  private state: number;

  constructor(seed: number) {
    this.state = seed >>> 0;
  }

  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** Integer in [min, max], both inclusive. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  chance(probability: number): boolean {
    return this.next() < probability;
  }

  pick<T>(items: readonly T[]): T {
    const item = items[Math.floor(this.next() * items.length)];
    if (item === undefined) throw new Error('cannot pick from an empty list');
    return item;
  }

  /** Returns a function that draws items with probability proportional to their weight. */
  weighted<T>(items: readonly T[], weightOf: (item: T) => number): () => T {
    const cumulative: number[] = [];
    let total = 0;
    for (const item of items) {
      total += weightOf(item);
      cumulative.push(total);
    }
    return () => {
      const target = this.next() * total;
      let lo = 0;
      let hi = cumulative.length - 1;
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        if ((cumulative[mid] ?? total) > target) hi = mid;
        else lo = mid + 1;
      }
      const item = items[lo];
      if (item === undefined) throw new Error('cannot pick from an empty list');
      return item;
    };
  }
}

const isoDate = (ms: number): string => new Date(ms).toISOString().slice(0, 10);

// SQLite's own datetime format, so date() / strftime() work on it directly.
const isoTimestamp = (ms: number): string => new Date(ms).toISOString().slice(0, 19).replace('T', ' ');

const clamp = (value: number, min: number, max: number): number => Math.min(max, Math.max(min, value));

function isbn13(random: Random): string {
  const digits = [9, 7, 8, ...Array.from({ length: 9 }, () => random.int(0, 9))];
  const sum = digits.reduce((acc, digit, i) => acc + digit * (i % 2 === 0 ? 1 : 3), 0);
  return [...digits, (10 - (sum % 10)) % 10].join('');
}

/** Calls `generate` until it yields a value not produced before. */
function uniqueGenerator<T>(generate: () => T, keyOf: (value: T) => string = String): () => T {
  const seen = new Set<string>();
  return () => {
    for (;;) {
      const value = generate();
      const key = keyOf(value);
      if (!seen.has(key)) {
        seen.add(key);
        return value;
      }
    }
  };
}

function insertReferenceData(db: Database.Database, random: Random): void {
  const publisher = db.prepare(
    'INSERT INTO publishers (id, name, country, founded_year) VALUES (?, ?, ?, ?)',
  );
  PUBLISHERS.forEach(([name, country], i) => {
    publisher.run(i + 1, name, country, random.int(1840, 2019));
  });

  const genre = db.prepare('INSERT INTO genres (id, name) VALUES (?, ?)');
  GENRES.forEach((name, i) => {
    genre.run(i + 1, name);
  });

  const warehouse = db.prepare('INSERT INTO warehouses (id, code, city, country) VALUES (?, ?, ?, ?)');
  WAREHOUSES.forEach(([code, city, country], i) => {
    warehouse.run(i + 1, code, city, country);
  });
}

function insertAuthors(db: Database.Database, random: Random): number[] {
  const insert = db.prepare(
    'INSERT INTO authors (id, first_name, last_name, birth_year, country) VALUES (?, ?, ?, ?, ?)',
  );
  const nextName = uniqueGenerator(
    () => [random.pick(FIRST_NAMES), random.pick(LAST_NAMES)] as const,
    (name) => name.join(' '),
  );
  const ids: number[] = [];
  for (let id = 1; id <= AUTHOR_COUNT; id++) {
    const [first, last] = nextName();
    const birthYear = random.chance(0.1) ? null : random.int(1940, 1998);
    insert.run(id, first, last, birthYear, random.pick(AUTHOR_COUNTRIES));
    ids.push(id);
  }
  return ids;
}

function insertBooks(db: Database.Database, random: Random, authorIds: readonly number[]): Book[] {
  const insertBook = db.prepare(
    `INSERT INTO books (id, isbn, title, publisher_id, genre_id, format, pages, price_cents, published_on)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const insertBookAuthor = db.prepare(
    'INSERT INTO book_authors (book_id, author_id, author_position) VALUES (?, ?, ?)',
  );
  const nextTitle = uniqueGenerator(() => random.pick(TITLE_TEMPLATES)(random));
  const nextIsbn = uniqueGenerator(() => isbn13(random));
  // A few prolific authors write most of the catalogue.
  const pickAuthor = random.weighted(authorIds, () => random.next() ** 2 + 0.05);

  const books: Book[] = [];
  for (let id = 1; id <= BOOK_COUNT; id++) {
    const hardcover = random.chance(0.35);
    const priceCents = (hardcover ? random.int(18, 29) : random.int(7, 14)) * 100 + 99;
    // Most of the catalogue is backlist; the rest is published while the shop is trading.
    const publishedMs = random.chance(0.85)
      ? random.int(BACKLIST_START_MS, START_MS)
      : random.int(START_MS, END_MS - 30 * DAY_MS);
    insertBook.run(
      id,
      nextIsbn(),
      nextTitle(),
      random.int(1, PUBLISHERS.length),
      random.int(1, GENRES.length),
      hardcover ? 'hardcover' : 'paperback',
      random.int(96, 720),
      priceCents,
      isoDate(publishedMs),
    );

    const authorCount = random.pick([1, 1, 1, 1, 1, 1, 1, 2, 2, 3]);
    const bookAuthors = new Set<number>();
    while (bookAuthors.size < authorCount) bookAuthors.add(pickAuthor());
    [...bookAuthors].forEach((authorId, i) => {
      insertBookAuthor.run(id, authorId, i + 1);
    });

    books.push({ id, priceCents, publishedMs, quality: 1.8 + random.next() * 3 });
  }
  return books;
}

function insertInventory(db: Database.Database, random: Random, books: readonly Book[]): void {
  const insert = db.prepare(
    'INSERT INTO inventory (warehouse_id, book_id, quantity, reorder_level) VALUES (?, ?, ?, ?)',
  );
  for (const book of books) {
    for (let warehouseId = 1; warehouseId <= WAREHOUSES.length; warehouseId++) {
      if (!random.chance(0.7)) continue;
      const quantity = random.chance(0.1) ? 0 : random.int(1, 120);
      insert.run(warehouseId, book.id, quantity, random.pick([5, 10, 20]));
    }
  }
}

function insertCustomers(db: Database.Database, random: Random): Customer[] {
  const insert = db.prepare(
    `INSERT INTO customers (id, email, first_name, last_name, city, country, joined_on, marketing_opt_in)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const pickRegion = random.weighted(REGIONS, (region) => region.weight);
  const emailCounts = new Map<string, number>();

  // Signups lean early so that order volume grows steadily instead of piling up at the end.
  // Sorting makes customer ids follow signup order, as in a real shop.
  const signupSpanMs = END_MS - 7 * DAY_MS - START_MS;
  const joinDates = Array.from({ length: CUSTOMER_COUNT }, () =>
    Math.floor(START_MS + signupSpanMs * random.next() ** 1.3),
  );
  joinDates.sort((a, b) => a - b);

  return joinDates.map((joinedMs, i): Customer => {
    const id = i + 1;
    const first = random.pick(FIRST_NAMES);
    const last = random.pick(LAST_NAMES);
    const region = pickRegion();
    const localPart = `${first}.${last}`.toLowerCase().replace(/[^a-z.]/g, '');
    const count = (emailCounts.get(localPart) ?? 0) + 1;
    emailCounts.set(localPart, count);
    const email = `${localPart}${count > 1 ? count : ''}@example.com`;
    insert.run(
      id,
      email,
      first,
      last,
      random.pick(region.cities),
      region.country,
      isoDate(joinedMs),
      random.chance(0.4) ? 1 : 0,
    );
    const warehouseId = WAREHOUSES.findIndex(([code]) => code === region.warehouse) + 1;
    return { id, joinedMs, warehouseId };
  });
}

function orderStatus(random: Random, orderedMs: number): OrderStatus {
  if (random.chance(0.04)) return 'cancelled';
  const ageDays = (END_MS - orderedMs) / DAY_MS;
  if (ageDays < 2) return 'pending';
  if (ageDays < 4) return 'paid';
  if (ageDays < 10) return 'shipped';
  return random.chance(0.03) ? 'refunded' : 'delivered';
}

/** Inserts orders with their line items and returns the delivered purchases (candidates for reviews). */
function insertOrders(
  db: Database.Database,
  random: Random,
  customers: readonly Customer[],
  books: readonly Book[],
): Purchase[] {
  const insertOrder = db.prepare(
    'INSERT INTO orders (id, customer_id, warehouse_id, ordered_at, status, shipping_cents) VALUES (?, ?, ?, ?, ?, ?)',
  );
  const insertItem = db.prepare(
    'INSERT INTO order_items (order_id, book_id, quantity, unit_price_cents) VALUES (?, ?, ?, ?)',
  );
  // Skewed weights give a long tail: a few loyal customers and a few bestsellers.
  const pickCustomer = random.weighted(customers, () => random.next() ** 3 + 0.02);
  const pickBook = random.weighted(books, () => random.next() ** 3 + 0.01);

  const drafts = Array.from({ length: ORDER_COUNT }, () => {
    const customer = pickCustomer();
    // Customers buy most often soon after signing up.
    const orderedMs = Math.floor(customer.joinedMs + (END_MS - customer.joinedMs) * random.next() ** 2);
    return { customer, orderedMs };
  });
  drafts.sort((a, b) => a.orderedMs - b.orderedMs);

  const purchases: Purchase[] = [];
  let orderId = 0;
  for (const { customer, orderedMs } of drafts) {
    const lineCount = random.pick([1, 1, 1, 2, 2, 2, 3, 3, 4, 5]);
    const lines = new Map<number, Book>();
    for (let attempt = 0; lines.size < lineCount && attempt < 20; attempt++) {
      const book = pickBook();
      if (book.publishedMs <= orderedMs) lines.set(book.id, book);
    }
    if (lines.size === 0) continue;

    const items = [...lines.values()].map((book) => ({
      book,
      quantity: random.chance(0.85) ? 1 : random.int(2, 3),
      unitPriceCents: random.chance(0.15)
        ? Math.round(book.priceCents * (1 - random.pick([0.1, 0.15, 0.2])))
        : book.priceCents,
    }));
    const subtotal = items.reduce((sum, item) => sum + item.quantity * item.unitPriceCents, 0);
    const status = orderStatus(random, orderedMs);

    orderId++;
    insertOrder.run(
      orderId,
      customer.id,
      customer.warehouseId,
      isoTimestamp(orderedMs),
      status,
      subtotal >= FREE_SHIPPING_FROM_CENTS ? 0 : SHIPPING_CENTS,
    );
    for (const item of items) {
      insertItem.run(orderId, item.book.id, item.quantity, item.unitPriceCents);
      if (status === 'delivered') purchases.push({ customerId: customer.id, book: item.book, orderedMs });
    }
  }
  return purchases;
}

function reviewBody(random: Random, rating: number): string | null {
  if (random.chance(0.25)) return null;
  const sentences =
    rating >= 4
      ? REVIEW_SENTENCES.positive
      : rating === 3
        ? REVIEW_SENTENCES.mixed
        : REVIEW_SENTENCES.negative;
  const first = random.pick(sentences);
  const second = random.pick(sentences);
  return random.chance(0.5) && second !== first ? `${first} ${second}` : first;
}

function insertReviews(db: Database.Database, random: Random, purchases: readonly Purchase[]): void {
  const insert = db.prepare(
    'INSERT INTO reviews (id, book_id, customer_id, rating, body, created_at) VALUES (?, ?, ?, ?, ?, ?)',
  );
  const reviewed = new Set<string>();
  let reviewId = 0;
  for (const { customerId, book, orderedMs } of purchases) {
    const key = `${book.id}:${customerId}`;
    if (reviewed.has(key) || !random.chance(0.3)) continue;
    const createdMs = orderedMs + random.int(4 * DAY_MS, 60 * DAY_MS);
    if (createdMs > END_MS) continue;
    reviewed.add(key);
    // The sum of two uniforms gives a triangular spread of up to ±1.5 stars around the book's quality.
    const rating = clamp(Math.round(book.quality + 1.5 * (random.next() + random.next() - 1)), 1, 5);
    reviewId++;
    insert.run(reviewId, book.id, customerId, rating, reviewBody(random, rating), isoTimestamp(createdMs));
  }
}

/**
 * Creates a demo SQLite database for "Sluice Books", a small online bookshop, at `path`.
 * The file must not exist yet. The contents are deterministic: every call builds the same data.
 */
export function createDemoDatabase(path: string): void {
  const db = new Database(path);
  try {
    db.pragma('journal_mode = WAL');
    db.pragma('foreign_keys = ON');
    const random = new Random(SEED);
    db.transaction(() => {
      db.exec(SCHEMA);
      insertReferenceData(db, random);
      const authorIds = insertAuthors(db, random);
      const books = insertBooks(db, random, authorIds);
      insertInventory(db, random, books);
      const customers = insertCustomers(db, random);
      const purchases = insertOrders(db, random, customers, books);
      insertReviews(db, random, purchases);
    })();
  } finally {
    db.close();
  }
}
