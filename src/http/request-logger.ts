import type { FastifyBaseLogger, FastifyInstance, FastifyLogFn } from 'fastify';

type Bindings = Parameters<FastifyBaseLogger['child']>[0];
type ChildLoggerOptions = NonNullable<Parameters<FastifyBaseLogger['child']>[1]>;
type Level = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace';
/** Fastify's logger is pino, which can say whether a level is on. */
type ParentLogger = FastifyBaseLogger & { isLevelEnabled(level: Level): boolean };

const levels: Level[] = ['fatal', 'error', 'warn', 'info', 'debug', 'trace'];

/**
 * A request's logger that makes its pino child (with the request id) only when something is logged
 * at an enabled level. Fastify makes a child for every request; at `warn` or above nearly none of
 * them is ever used (at `info` Fastify itself logs every request), and making one costs about as much
 * as the rest of a cached read.
 */
class LazyRequestLogger {
  #child: FastifyBaseLogger | null = null;
  readonly #parent: ParentLogger;
  readonly #bindings: Bindings;
  readonly #options: ChildLoggerOptions;

  constructor(parent: ParentLogger, bindings: Bindings, options: ChildLoggerOptions) {
    this.#parent = parent;
    this.#bindings = bindings;
    this.#options = options;
  }

  get level(): string {
    return this.#options.level ?? this.#parent.level;
  }

  get #real(): FastifyBaseLogger {
    return (this.#child ??= this.#parent.child(this.#bindings, this.#options));
  }

  #enabled(level: Level): boolean {
    // A route-level override decides for itself; otherwise the parent's level does.
    return this.#options.level !== undefined || this.#parent.isLevelEnabled(level);
  }

  child(bindings: Bindings, options?: ChildLoggerOptions): FastifyBaseLogger {
    return this.#real.child(bindings, options);
  }

  silent(): void {}

  declare fatal: FastifyLogFn;
  declare error: FastifyLogFn;
  declare warn: FastifyLogFn;
  declare info: FastifyLogFn;
  declare debug: FastifyLogFn;
  declare trace: FastifyLogFn;

  static {
    for (const level of levels) {
      Object.defineProperty(LazyRequestLogger.prototype, level, {
        value(this: LazyRequestLogger, ...args: Parameters<FastifyLogFn>) {
          if (this.#enabled(level)) (this.#real[level] as (...a: unknown[]) => void)(...args);
        },
      });
    }
  }
}

/** Only for a real (pino) logger; without one Fastify already hands every request the same null logger. */
export function installLazyRequestLoggers(app: FastifyInstance): void {
  app.setChildLoggerFactory((logger, bindings, options) => new LazyRequestLogger(logger as ParentLogger, bindings, options) as unknown as FastifyBaseLogger);
}
