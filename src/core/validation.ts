import type { FastifyInstance, FastifySchema } from 'fastify';
import { Ajv, type Options } from 'ajv';
import addFormats from 'ajv-formats';

function createAjv(options: Options): Ajv {
  const ajv = new Ajv({ allErrors: false, removeAdditional: true, useDefaults: true, strict: false, ...options });
  (addFormats as unknown as (ajv: Ajv) => void)(ajv);
  return ajv;
}

/**
 * JSON bodies are validated strictly (42 is not a name); only the query string, path
 * parameters and headers, which arrive as text, have their types coerced.
 */
export function registerValidation(app: FastifyInstance): void {
  const strict = createAjv({ coerceTypes: false });
  const coercing = createAjv({ coerceTypes: 'array' });
  app.setValidatorCompiler<FastifySchema>(({ schema, httpPart }) =>
    (httpPart === 'body' ? strict : coercing).compile(schema as object),
  );
}
