#!/usr/bin/env python3
"""Hostile Nsight Systems exports (.sqlite) for the bad-input catalogue (catalogue.json, source
"hostile"): what a crafted or damaged file can ask of SQLite and of the importer. Each is a small
training export (tests/nsys/make_exports.py) with one thing wrong:

  hostile_view_recursive.sqlite   every event table the importer reads is a VIEW over a recursive
                                  CTE that never ends (views are never read: ignored and listed)
  hostile_view_cross_join.sqlite  NVTX_EVENTS a VIEW over a 5-way cross join of a 2,000-row table
  hostile_trigger.sqlite          triggers on the export's tables (reading fires none; listed)
  hostile_generated_column.sqlite the kernel table's start a generated column that asks for a
                                  2 GB zeroblob on every row read
  hostile_unknown_function.sqlite the kernel table's schema calls a function SQLite does not have
  hostile_attach_schema.sqlite    a schema row whose SQL is an ATTACH statement
  hostile_page_count.sqlite       the header's page count (bytes 28-31) near 2^32
  hostile_corrupt_page.sqlite     the kernel table's b-tree page with a page type that is none
  hostile_wal_without_wal.sqlite  a WAL-mode database copied without its -wal file
  hostile_blob_times.sqlite       a 20 MB BLOB where a kernel's start time (an integer) belongs
  hostile_text_times.sqlite       TEXT where integers belong (a word, 1e400, a megabyte of digits)
  hostile_ids.sqlite              ids out of range (2^63-1, -2^63, negative) and name ids that point
                                  at no string, or at themselves as text
  hostile_schema_loop.sqlite      the schema's b-tree root (page 1) an interior page whose every
                                  child pointer points back at page 1: a tree without end
  hostile_long_strings.sqlite     1,000 StringIds rows of 64 KiB no row names, and one kernel
                                  named by a 64 KiB string (the reader held every text)
  hostile_nvtx_depth.sqlite       100,000 push/pop NVTX ranges nested on one thread around the
                                  whole capture
  hostile_freelist_loop.sqlite    the freelist's trunk page pointing at itself, and a free page
                                  count near 2^31 in the header

  hostile_exports.py DIR
"""
import os
import sqlite3
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'nsys'))
import make_exports as mx  # noqa: E402

# Every event table the importer reads (src/import/nsys_sqlite/): a view under each name.
EVENT_TABLES = ('CUPTI_ACTIVITY_KIND_KERNEL', 'CUPTI_ACTIVITY_KIND_RUNTIME',
                'CUPTI_ACTIVITY_KIND_MEMCPY', 'CUPTI_ACTIVITY_KIND_MEMSET',
                'CUPTI_ACTIVITY_KIND_SYNCHRONIZATION', 'NVTX_EVENTS', 'OSRT_API')
ENDLESS = 'WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT n AS start, ' \
          'n AS end, 0 AS deviceId, 7 AS streamId, n AS correlationId FROM r'


def edit_schema(path, table, sql):
    """Replaces `table`'s CREATE statement in sqlite_master with `sql` (as a crafted file would
    hold it: SQLite itself refuses to create it)."""
    db = sqlite3.connect(path)
    db.execute('PRAGMA writable_schema=ON')
    db.execute('UPDATE sqlite_master SET sql = ? WHERE name = ?', (sql, table))
    db.commit()
    db.close()


def table_sql(table):
    return 'CREATE TABLE %s (%s)' % (table, mx.TABLES[table])


def poke(path, offset, data):
    with open(path, 'r+b') as f:
        f.seek(offset)
        f.write(data)


def root_page(path, table):
    db = sqlite3.connect(path)
    page = db.execute('SELECT rootpage FROM sqlite_master WHERE name = ?', (table,)).fetchone()[0]
    size = db.execute('PRAGMA page_size').fetchone()[0]
    db.close()
    return page, size


def build(out):
    os.makedirs(out, exist_ok=True)
    p = lambda name: os.path.join(out, name)
    kernel = 'CUPTI_ACTIVITY_KIND_KERNEL'

    mx.training(steps=2).save(p('hostile_view_recursive.sqlite'), skip_tables=EVENT_TABLES,
                              extra_sql=''.join('CREATE VIEW %s AS %s;' % (t, ENDLESS)
                                                for t in EVENT_TABLES) +
                              # A real runtime table, so that the file is an export to refuse for
                              # what it lacks, not for being no export.
                              table_sql('CUPTI_ACTIVITY_KIND_RUNTIME').replace(
                                  'CUPTI_ACTIVITY_KIND_RUNTIME', 'runtime_rows') + ';')

    cross = ' '.join('CROSS JOIN big b%d' % k for k in range(1, 5))
    mx.training(steps=2).save(
        p('hostile_view_cross_join.sqlite'), skip_tables=('NVTX_EVENTS',),
        extra_sql='CREATE TABLE big (v INTEGER);'
                  'WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 2000) '
                  'INSERT INTO big SELECT n FROM r;'
                  'CREATE VIEW NVTX_EVENTS AS SELECT b0.v AS start, b0.v + 1 AS end, 59 AS eventType,'
                  ' b0.v AS text, 4242 AS globalTid FROM big b0 %s;' % cross)

    mx.training(steps=2).save(
        p('hostile_trigger.sqlite'),
        extra_sql='CREATE TRIGGER wipe AFTER INSERT ON StringIds BEGIN DELETE FROM %s; END;'
                  'CREATE TRIGGER grow BEFORE UPDATE ON %s BEGIN '
                  'INSERT INTO StringIds SELECT id + 1000000, value FROM StringIds; END;'
                  % (kernel, kernel))

    # A generated column leaves the stored rows as they are when it comes last: the kernel's start
    # is stored as realstart, and start computed from it by a call that fails (too big for the
    # length limit) or names a function SQLite does not have.
    for name, expression in (('hostile_generated_column.sqlite',
                              'length(zeroblob(2000000000)) + realstart'),
                             ('hostile_unknown_function.sqlite', 'evil_udf(realstart)')):
        mx.training(steps=2).save(p(name))
        edit_schema(p(name), kernel, table_sql(kernel).replace(
            'start INTEGER NOT NULL', 'realstart INTEGER NOT NULL')[:-1] +
            ', start INTEGER GENERATED ALWAYS AS (%s) VIRTUAL)' % expression)

    mx.training(steps=2).save(p('hostile_attach_schema.sqlite'))
    edit_schema(p('hostile_attach_schema.sqlite'), 'OSRT_API',
                "ATTACH DATABASE '/etc/passwd' AS secrets")

    path = p('hostile_page_count.sqlite')
    mx.training(steps=2).save(path)
    poke(path, 28, (0xFFFFFFF0).to_bytes(4, 'big'))

    path = p('hostile_corrupt_page.sqlite')
    mx.training(steps=2).save(path)
    page, size = root_page(path, kernel)
    poke(path, (page - 1) * size, b'\x07')  # b-tree page types are 2, 5, 10 and 13

    path = p('hostile_wal_without_wal.sqlite')
    if os.path.exists(path):
        os.remove(path)
    mx.training(steps=2).save(path + '.tmp')
    db = sqlite3.connect(path + '.tmp')
    db.execute('PRAGMA journal_mode=WAL')
    db.execute('PRAGMA wal_autocheckpoint=0')
    db.execute('DELETE FROM %s' % kernel)  # in the -wal only: the copy keeps the old rows
    db.commit()
    with open(path + '.tmp', 'rb') as f:
        data = f.read()
    db.close()
    with open(path, 'wb') as f:
        f.write(data)
    for suffix in ('.tmp', '.tmp-wal', '.tmp-shm'):
        if os.path.exists(path + suffix):
            os.remove(path + suffix)

    e = mx.training(steps=2)
    rows = e.rows[kernel]
    rows[1] = (bytes(20 << 20),) + rows[1][1:]
    e.save(p('hostile_blob_times.sqlite'))

    e = mx.training(steps=2)
    rows = e.rows[kernel]
    rows[0] = ('ninety',) + rows[0][1:]
    rows[1] = ('1e400',) + rows[1][1:]
    rows[2] = (rows[2][0], '9' * (1 << 20)) + rows[2][2:]
    e.save(p('hostile_text_times.sqlite'))

    e = mx.training(steps=2)
    rows = e.rows[kernel]
    cols = [c.split()[0] for c in mx.TABLES[kernel].split(', ')]
    at = {c: k for k, c in enumerate(cols)}

    def with_values(row, **values):
        row = list(row)
        for c, v in values.items():
            row[at[c]] = v
        return tuple(row)
    rows[0] = with_values(rows[0], deviceId=2**63 - 1, streamId=-(2**63))
    rows[1] = with_values(rows[1], correlationId=-1, demangledName=2**63 - 1, shortName=-7)
    rows[2] = with_values(rows[2], demangledName=2**62, gridX=-(2**63), blockX=2**63 - 1)
    e.save(p('hostile_ids.sqlite'))
    db = sqlite3.connect(p('hostile_ids.sqlite'))
    db.executemany('INSERT INTO StringIds VALUES (?, ?)',
                   [(-(2**63), 'lowest id'), (2**63 - 1, str(2**63 - 1)), (-1, '-1'),
                    (10**12, 'far id')])
    db.commit()
    db.close()

    path = p('hostile_schema_loop.sqlite')
    mx.training(steps=2).save(path)
    db = sqlite3.connect(path)
    db.execute('PRAGMA page_size=512')
    db.execute('VACUUM')  # small pages: the export's schema alone no longer fits page 1
    db.close()
    with open(path, 'r+b') as f:
        page1 = bytearray(f.read(512))
        assert page1[100] == 0x05, 'page 1 must be an interior table page'
        page1[108:112] = (1).to_bytes(4, 'big')  # the right-most child
        for i in range(int.from_bytes(page1[103:105], 'big')):
            cell = int.from_bytes(page1[112 + 2 * i:114 + 2 * i], 'big')
            page1[cell:cell + 4] = (1).to_bytes(4, 'big')
        f.seek(0)
        f.write(page1)

    path = p('hostile_long_strings.sqlite')
    mx.training(steps=2).save(path)
    db = sqlite3.connect(path)
    long_id = 10**6
    db.executemany('INSERT INTO StringIds VALUES (?, ?)',
                   [(long_id + i, '%05d' % i + 'x' * 65531) for i in range(1000)])
    db.execute('UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET demangledName = ? WHERE rowid = 1',
               (long_id,))
    db.commit()
    db.close()

    path = p('hostile_nvtx_depth.sqlite')
    e = mx.training(steps=2)
    e.save(path)
    db = sqlite3.connect(path)
    depth = 100_000
    db.execute('WITH RECURSIVE c(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM c WHERE i < %d) '
               "INSERT INTO NVTX_EVENTS (start, end, eventType, text, globalTid) "
               "SELECT i, 1000000000 + %d - i, 59, 'range' || (i %% 7), %d FROM c"
               % (depth - 1, depth, mx.gtid(e.pid, e.pid)))
    db.commit()
    db.close()

    path = p('hostile_freelist_loop.sqlite')
    mx.training(steps=2).save(path, page_size=4096)
    db = sqlite3.connect(path)
    db.execute('CREATE TABLE junk (x BLOB)')
    db.executemany('INSERT INTO junk VALUES (?)', [(b'z' * 3000,) for _ in range(20)])
    db.commit()
    db.execute('DROP TABLE junk')  # its pages go to the freelist
    db.commit()
    db.close()
    with open(path, 'r+b') as f:
        f.seek(32)
        trunk = int.from_bytes(f.read(4), 'big')
        assert trunk > 1, 'the file must have a freelist'
        poke(path, (trunk - 1) * 4096, trunk.to_bytes(4, 'big') + (1000).to_bytes(4, 'big'))
        poke(path, 36, (0x7fffffff).to_bytes(4, 'big'))


if __name__ == '__main__':
    build(sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        os.path.dirname(os.path.abspath(__file__)), '..', '..', 'build', 'bad_inputs'))
