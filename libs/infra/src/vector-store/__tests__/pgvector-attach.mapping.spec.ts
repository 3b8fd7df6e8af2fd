import { quoteQualified, resolvePgAttachConfig } from '../pgvector-attach.mapping';
import { vectorLiteral, vectorOfSql } from '../pgvector-vector-store.adapter';

describe('pgvector attach configuration', () => {
  it('LangChain layout: default tables and columns, the collection name is the service name', () => {
    const c = resolvePgAttachConfig({ layout: 'langchain', langchainCollection: 'kb' });
    expect(c).toMatchObject({
      tableKey: 'langchain_pg_embedding', table: '"langchain_pg_embedding"', collectionTable: '"langchain_pg_collection"',
      id: '"id"', content: '"document"', embedding: '"embedding"', idType: 'uuid', serviceCollection: 'kb',
    });
    expect(resolvePgAttachConfig({ layout: 'langchain', langchainCollection: 'kb', table: 'app.langchain_pg_embedding' }).collectionTable).toBe('"app"."langchain_pg_collection"');
    expect(() => resolvePgAttachConfig({ layout: 'langchain' })).toThrow(/LangChain collection name is required/);
  });

  it('table layout: configured columns, the table name without schema is the service name', () => {
    const c = resolvePgAttachConfig({ layout: 'table', table: 'public.docs', contentColumn: 'body', idType: 'integer' });
    expect(c).toMatchObject({ tableKey: 'public.docs', table: '"public"."docs"', content: '"body"', idType: 'integer', serviceCollection: 'docs', collectionTable: null });
    expect(() => resolvePgAttachConfig({ layout: 'table' })).toThrow(/table is required/);
  });

  it('refuses names that are not plain identifiers (no SQL from configuration)', () => {
    for (const bad of ['docs; DROP TABLE x', 'a.b.c', '"docs"', 'docs--', '']) expect(() => quoteQualified(bad, 'table')).toThrow(/must be/);
    expect(() => resolvePgAttachConfig({ layout: 'table', table: 'docs', idColumn: 'id) OR (1=1' })).toThrow(/plain column name/);
    expect(() => resolvePgAttachConfig({ layout: 'table', table: 'docs', embeddingColumn: 't.embedding' })).toThrow(/plain column name/);
  });
});

describe('pgvector text format', () => {
  it('writes float32-exact numbers (sign of zero kept) and reads them back', () => {
    expect(vectorLiteral([1, -0, 0.1, 1 / 3])).toBe(`[1,-0,${Math.fround(0.1)},${Math.fround(1 / 3)}]`);
    expect(Array.from(vectorOfSql('[1,-0,0.1,3e-07]'))).toEqual([1, -0, Math.fround(0.1), Math.fround(3e-7)]);
    expect(vectorOfSql('[]')).toHaveLength(0);
    expect(vectorOfSql(null)).toHaveLength(0);
  });
});
