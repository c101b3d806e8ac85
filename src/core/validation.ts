import type { FastifyInstance, FastifySchema } from 'fastify';
import { Ajv, type ErrorObject, type Options, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';

function createAjv(options: Options): Ajv {
  const ajv = new Ajv({ allErrors: false, removeAdditional: true, useDefaults: true, strict: false, ...options });
  (addFormats as unknown as (ajv: Ajv) => void)(ajv);
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
  const checked = (data: Record<string, unknown> | null) => {
    const malformed = names.find((name) => typeof data?.[name] === 'string' && !DECIMAL_INTEGER.test(data[name] as string));
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
export function registerValidation(app: FastifyInstance): void {
  const strict = createAjv({ coerceTypes: false });
  const coercing = createAjv({ coerceTypes: 'array' });
  app.setValidatorCompiler<FastifySchema>(({ schema, httpPart }) => {
    if (httpPart === 'body') return STREAMED_FORMS.has(schema as object) ? () => true : strict.compile(schema as object);
    const validate = coercing.compile(schema as object);
    const integers = httpPart === 'params' || httpPart === 'querystring' ? integerPropertiesOf(schema as object) : [];
    return integers.length === 0 ? validate : decimalIntegersOnly(validate, integers);
  });
}
