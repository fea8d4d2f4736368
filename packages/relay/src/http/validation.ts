import type { FastifySchemaCompiler, FastifySchemaValidationError } from 'fastify';
import type { ZodType } from 'zod';

/**
 * Fastify validator compiler for zod schemas. A failure becomes fastify's validation error, so
 * the relay answers bad input the way the real server (fastify + zod) does: 400
 * `{error:'Error', message:'body/messages Too small: …', statusCode:400}`.
 */
export const zodValidatorCompiler: FastifySchemaCompiler<ZodType> = ({ schema }) => {
  return (data) => {
    const result = schema.safeParse(data);
    if (result.success) return { value: result.data };
    const errors: FastifySchemaValidationError[] = result.error.issues.map((issue) => ({
      keyword: issue.code,
      instancePath: `/${issue.path.map(String).join('/')}`,
      schemaPath: `#/${issue.path.map(String).join('/')}/${issue.code}`,
      params: {},
      message: issue.message,
    }));
    return { error: errors };
  };
};
