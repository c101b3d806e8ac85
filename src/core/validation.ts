import type { FastifyInstance, FastifySchema, FastifySchemaCompiler, FastifyServerOptions } from 'fastify';
import { badRequest } from './errors.js';
import type SerializerSelector from '@fastify/fast-json-stringify-compiler';
import type { Ajv, ErrorObject, Options, ValidateFunction } from 'ajv';
import type AjvFormats from 'ajv-formats';
import { loadOnFirstUse } from '../infra/load-on-first-use.js';

const ajvPackage = loadOnFirstUse<typeof import('ajv')>('ajv');
const ajvFormats = loadOnFirstUse<typeof AjvFormats>('ajv-formats');
const serializerCompiler = loadOnFirstUse<{ SerializerSelector: typeof SerializerSelector }>('@fastify/fast-json-stringify-compiler');

function createAjv(options: Options): Ajv {
  const ajv = new (ajvPackage().Ajv)({ allErrors: false, removeAdditional: true, useDefaults: true, strict: false, ...options });
  (ajvFormats() as unknown as (ajv: Ajv) => void)(ajv);
  return ajv;
}

const DECIMAL_INTEGER = /^-?\d{1,16}$/;

const STREAMED_FORMS = new WeakSet<object>();

/**
 * Marks a multipart body schema that documents a form read as a stream: Fastify never sees
 * the body (the route reads its parts and checks each field as it arrives), so the schema
 * feeds OpenAPI and is not compiled into a body validator.
 */
export function streamedForm<T extends object>(schema: T): T {
  STREAMED_FORMS.add(schema);
  return schema;
}

type Validate = ((data: unknown) => boolean) & { errors?: ErrorObject[] | null };

/**
 * Schemas are compiled when their route is first called, not at start-up: compiling every
 * route's validators and serializers was a third of the time to a ready server (docs/adr/0012-start-up.md).
 */
function validatorOnFirstUse(compile: () => Validate): Validate {
  let validate: Validate | undefined;
  const checked = (data: unknown) => {
    validate ??= compile();
    const valid = validate(data);
    checked.errors = validate.errors;
    return valid;
  };
  checked.errors = null as ErrorObject[] | null | undefined;
  return checked;
}

/** The top-level properties an object schema declares as integers. */
function integerPropertiesOf(schema: object): string[] {
  const properties = (schema as { properties?: Record<string, { type?: unknown }> }).properties ?? {};
  return Object.entries(properties)
    .filter(([, property]) => property.type === 'integer')
    .map(([name]) => name);
}

/**
 * Ajv coerces text to numbers as JavaScript does, so "0x1", "1e0" and " 1" would all be 1:
 * integers in a path or query string must be written in decimal digits before coercion.
 */
function decimalIntegersOnly(validate: ValidateFunction, names: string[]) {
  const checked = (data: unknown) => {
    const fields = data as Record<string, unknown> | null;
    const malformed = names.find((name) => typeof fields?.[name] === 'string' && !DECIMAL_INTEGER.test(fields[name] as string));
    if (malformed !== undefined) {
      checked.errors = [
        {
          keyword: 'type',
          instancePath: `/${malformed}`,
          schemaPath: '',
          params: { type: 'integer' },
          message: 'must be an integer in decimal digits',
        },
      ];
      return false;
    }
    const valid = validate(data);
    checked.errors = validate.errors;
    return valid;
  };
  checked.errors = null as ErrorObject[] | null | undefined;
  return checked;
}

/**
 * JSON bodies are validated strictly (42 is not a name); only the query string, path
 * parameters and headers, which arrive as text, have their types coerced.
 */
const validatorCompiler: FastifySchemaCompiler<FastifySchema> = (() => {
  let strict: Ajv | undefined;
  let coercing: Ajv | undefined;
  return ({ schema, httpPart }) => {
    if (httpPart === 'body' && STREAMED_FORMS.has(schema as object)) return () => true;
    return validatorOnFirstUse(() => {
      if (httpPart === 'body') return (strict ??= createAjv({ coerceTypes: false })).compile(schema as object);
      const validate = (coercing ??= createAjv({ coerceTypes: 'array' })).compile(schema as object);
      const integers = httpPart === 'params' || httpPart === 'querystring' ? integerPropertiesOf(schema as object) : [];
      return integers.length === 0 ? validate : decimalIntegersOnly(validate, integers);
    });
  };
})();

/**
 * Fastify's schema compilers: ours for validation (above), Fastify's own fast-json-stringify
 * for responses, each compiled on first use. Given here, Fastify does not load its default
 * Ajv compiler at start.
 */
type SchemaController = NonNullable<FastifyServerOptions['schemaController']>;
type CompilersFactory = NonNullable<SchemaController['compilersFactory']>;

export const schemaCompilers: SchemaController = {
  compilersFactory: {
    // Fastify calls the factory's compiler with the route's schema, as setValidatorCompiler's;
    // its types describe Ajv's own compile instead.
    buildValidator: (() => validatorCompiler) as unknown as CompilersFactory['buildValidator'],
    buildSerializer(externalSchemas, options) {
      let compileFor: ReturnType<ReturnType<typeof SerializerSelector>> | undefined;
      return (route) => {
        let serialize: ((data: unknown) => string) | undefined;
        return (data: unknown) => {
          compileFor ??= serializerCompiler().SerializerSelector()(externalSchemas, options);
          return (serialize ??= compileFor(route))(data);
        };
      };
    },
  },
};

/** Whether any string in a parsed JSON value holds U+0000. */
function holdsNul(value: unknown): boolean {
  if (typeof value === 'string') return value.includes('\u0000');
  if (Array.isArray(value)) return value.some(holdsNul);
  if (value !== null && typeof value === 'object') return Object.entries(value).some(([key, item]) => key.includes('\u0000') || holdsNul(item));
  return false;
}

/**
 * Query strings and path parameters holding U+0000 (`%00`) are refused like JSON bodies: SQLite
 * cuts a LIKE pattern at it (`?q=%00` matched every name) where PostgreSQL refuses the text.
 */
export function refuseNulInUrl(app: FastifyInstance): void {
  app.addHook('preValidation', async (request) => {
    if (request.raw.url?.includes('%00') && (holdsNul(request.query) || holdsNul(request.params))) {
      throw badRequest('Text in the request must not contain the NUL character (U+0000)');
    }
  });
}

/**
 * JSON bodies through Fastify's own parser (its prototype-poisoning checks included), refusing
 * text with U+0000: PostgreSQL cannot store it in a text column and SQLite would, so it is a
 * 400 on both rather than a 500 on one.
 */
export function refuseNulInJson(app: FastifyInstance): void {
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    void parseJson(request, body as string, (error: Error | null, value?: unknown) => {
      if (error) return done(error);
      // A NUL can only reach a parsed string through its escape in the text: most bodies skip the walk.
      if ((body as string).includes('\\u0000') && holdsNul(value))
        return done(badRequest('Text in the request must not contain the NUL character (U+0000)'));
      done(null, value);
    });
  });
}
