// Package index is kontext's search index: a persistent, incremental,
// BM25-ranked full-text index over the team's entries, the repository's
// Markdown documentation and its recent commits, kept in one SQLite
// database (FTS5, through the pure-Go modernc.org/sqlite) under the
// directory the caller gives — <git common dir>/kontext/worktrees/<worktree>/,
// never committed.
//
// The index is a cache: everything in it is rebuilt from the sources, so
// an index of an older schema or a corrupt file is thrown away and built
// again instead of being reported. Before a query it asks each source
// whether anything changed (a few stats and the HEAD sha) and applies
// only what did, in one transaction, so a reader in this or another
// process sees the index before or after a refresh, never half of one.
package index

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// schemaVersion names the index file, so that two kontext versions with
// different schemas never fight over one file: each has its own, and an
// index of another version is simply rebuilt. Bump it whenever the
// tables, the tokenizer or what goes into a column changes (2: secret
// files left out of commits' paths, credential documents left out).
const schemaVersion = 2

// The FTS5 columns are title, expanded, body and paths, in that order;
// bm25Weights weighs them. The title says what a document is about; the
// expanded identifiers are almost as telling; file names matter least (a
// commit that touched orders.go is weak evidence that it is about orders).
const (
	bm25Weights = "2.5, 1.5, 1.0, 0.4"
	colBody     = 2 // where snippets come from
)

// pathsSep ends the paths in the paths column; their expanded
// identifiers follow it. A path never holds a blank line.
const pathsSep = "\n\n"

// Options configure an index.
type Options struct {
	// Dir holds the index files; it is created if missing.
	Dir string
	// Sources feed the index. A source that disappears from this list has
	// its documents dropped on the next refresh.
	Sources []Source
	// MinInterval is the least time between two checks for changes made
	// on behalf of queries (Refresh); 0 means one second, a negative value
	// checks before every query. RefreshNow ignores it.
	MinInterval time.Duration
	// BusyTimeout is how long a refresh waits for another process's
	// refresh to finish; 0 means 30 seconds.
	BusyTimeout time.Duration
	// Logf receives what the index recovers from (a corrupt file, a source
	// that failed); nil discards it.
	Logf func(format string, args ...any)
}

// Index is an open search index. It is safe for concurrent use.
type Index struct {
	opts Options
	path string

	// mu guards db: queries and refreshes hold it for reading, the
	// recovery from a corrupt file for writing while it swaps the file.
	mu sync.RWMutex
	db *sql.DB

	refreshMu sync.Mutex // one refresh at a time in this process
	lastCheck time.Time  // guarded by refreshMu
	closed    bool       // guarded by mu
	dirty     atomic.Bool

	checkpointing atomic.Bool
	background    sync.WaitGroup
}

// Open opens the index in opts.Dir, creating or rebuilding its file as
// needed. It does not read the sources: the first query (or Refresh)
// builds the index.
func Open(ctx context.Context, opts Options) (*Index, error) {
	if opts.Dir == "" {
		return nil, errors.New("index: no directory")
	}
	if opts.MinInterval == 0 {
		opts.MinInterval = time.Second
	}
	if opts.BusyTimeout <= 0 {
		opts.BusyTimeout = 30 * time.Second
	}
	names := map[string]bool{}
	for _, s := range opts.Sources {
		if s == nil || s.Name() == "" || names[s.Name()] {
			return nil, fmt.Errorf("index: sources need distinct, non-empty names")
		}
		names[s.Name()] = true
	}
	if err := os.MkdirAll(opts.Dir, 0o755); err != nil {
		return nil, &NotWritableError{Dir: opts.Dir, Err: err}
	}
	ix := &Index{opts: opts, path: filepath.Join(opts.Dir, fmt.Sprintf("index-v%d.db", schemaVersion))}
	if err := probeWritable(opts.Dir, ix.path); err != nil {
		return nil, &NotWritableError{Dir: opts.Dir, Err: err}
	}
	removeOtherVersions(opts.Dir, filepath.Base(ix.path))
	db, err := ix.openDB(ctx)
	if err != nil {
		return nil, err
	}
	ix.db = db
	return ix, nil
}

// NotWritableError says the index cannot live in the directory asked for
// (it cannot be made, or written): a read-only .git, another user's clone.
// The index is a cache, so a caller can open it elsewhere.
type NotWritableError struct {
	Dir string
	Err error
}

func (e *NotWritableError) Error() string {
	return fmt.Sprintf("index: %s is not writable: %v", e.Dir, e.Err)
}

func (e *NotWritableError) Unwrap() error { return e.Err }

// probeWritable checks that dir takes a new file and that the database
// file, when there is one, can be written: SQLite would open either
// read-only and fail at the first refresh instead.
func probeWritable(dir, db string) error {
	f, err := os.CreateTemp(dir, ".probe-*")
	if err != nil {
		return err
	}
	name := f.Name()
	f.Close()
	if err := os.Remove(name); err != nil {
		return err
	}
	if f, err := os.OpenFile(db, os.O_WRONLY, 0); err == nil {
		f.Close()
	} else if !errors.Is(err, os.ErrNotExist) {
		return err
	}
	return nil
}

// Path is the index's database file.
func (ix *Index) Path() string { return ix.path }

// Close closes the database. Sources are the caller's to close.
func (ix *Index) Close() error {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if ix.closed {
		return nil
	}
	ix.closed = true
	ix.background.Wait()
	return ix.db.Close()
}

// walCheckpointBytes is the WAL size past which a refresh checkpoints.
const walCheckpointBytes = 4 << 20

// checkpoint copies a grown WAL back into the database, in the
// background: SQLite's automatic checkpoint would do it inside the commit
// of the refresh that crossed the threshold, and the query that caused
// the refresh would wait for the extra I/O. A passive checkpoint blocks
// neither readers nor writers.
func (ix *Index) checkpoint(db *sql.DB) {
	fi, err := os.Stat(ix.path + "-wal")
	if err != nil || fi.Size() < walCheckpointBytes {
		return
	}
	if !ix.checkpointing.CompareAndSwap(false, true) {
		return
	}
	ix.background.Add(1)
	go func() {
		defer ix.background.Done()
		defer ix.checkpointing.Store(false)
		if _, err := db.Exec(`PRAGMA wal_checkpoint(PASSIVE)`); err != nil {
			ix.logf("index: checkpoint: %v", err)
		}
	}()
}

func (ix *Index) logf(format string, args ...any) {
	if ix.opts.Logf != nil {
		ix.opts.Logf(format, args...)
	}
}

// removeOtherVersions deletes the files of other schema versions: they
// are caches nobody of this version can read.
func removeOtherVersions(dir, keep string) {
	matches, _ := filepath.Glob(filepath.Join(dir, "index-v*.db*"))
	for _, m := range matches {
		base := filepath.Base(m)
		if base == keep || strings.HasPrefix(base, keep+"-") {
			continue
		}
		os.Remove(m)
	}
}

func (ix *Index) dsn() string {
	// A file: URI, so that '?' or '#' in the path cannot be read as
	// parameters; SQLite decodes the %-escapes.
	p := filepath.ToSlash(ix.path)
	p = strings.NewReplacer("%", "%25", "?", "%3f", "#", "%23").Replace(p)
	ms := strconv.FormatInt(ix.opts.BusyTimeout.Milliseconds(), 10)
	return "file:" + p +
		"?_pragma=busy_timeout(" + ms + ")" +
		"&_pragma=journal_mode(WAL)" +
		"&_pragma=synchronous(NORMAL)" +
		"&_pragma=temp_store(MEMORY)" +
		"&_pragma=cache_size(-32000)" +
		// Checkpoints run in the background after a refresh (see
		// checkpoint), not inside the commit of the refresh.
		"&_pragma=wal_autocheckpoint(0)" +
		"&_pragma=journal_size_limit(16777216)" +
		// Write transactions take the write lock when they begin, so two
		// refreshing processes queue on the busy timeout instead of one
		// failing with SQLITE_BUSY when it upgrades a read lock.
		"&_txlock=immediate"
}

// openDB opens the file and makes sure it holds this version's schema;
// a file that is not a database, or a corrupt one, is deleted and made
// again.
func (ix *Index) openDB(ctx context.Context) (*sql.DB, error) {
	db, err := ix.tryOpen(ctx)
	if err == nil {
		return db, nil
	}
	if !isCorrupt(err) {
		return nil, fmt.Errorf("index: %w", err)
	}
	ix.logf("index: %s is unusable (%v); rebuilding it", ix.path, err)
	if err := removeDBFiles(ix.path); err != nil {
		return nil, fmt.Errorf("index: %w", err)
	}
	db, err = ix.tryOpen(ctx)
	if err != nil {
		return nil, fmt.Errorf("index: %w", err)
	}
	return db, nil
}

func (ix *Index) tryOpen(ctx context.Context) (*sql.DB, error) {
	db, err := sql.Open("sqlite", ix.dsn())
	if err != nil {
		return nil, err
	}
	// Two concurrent queries and a refresh need three connections; more
	// would only hold more page caches.
	db.SetMaxOpenConns(4)
	db.SetMaxIdleConns(4)
	if err := ensureSchema(ctx, db); err != nil {
		db.Close()
		return nil, err
	}
	return db, nil
}

func removeDBFiles(path string) error {
	for _, suffix := range []string{"", "-wal", "-shm", "-journal"} {
		if err := os.Remove(path + suffix); err != nil && !os.IsNotExist(err) {
			return err
		}
	}
	return nil
}

// schema is the whole index. fts holds the searchable text (its rowid is
// docs.id; its paths column is the paths, pathsSep, and their expanded
// identifiers); docs the rest of what a hit shows; units the version each
// source's items were indexed at (one Markdown file is one unit of
// several docs); sources the fingerprint each source had at its last
// refresh.
var schema = []string{
	`CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID`,
	`CREATE TABLE sources(name TEXT PRIMARY KEY, fingerprint TEXT NOT NULL) WITHOUT ROWID`,
	`CREATE TABLE units(id INTEGER PRIMARY KEY, source TEXT NOT NULL, key TEXT NOT NULL, version TEXT NOT NULL, UNIQUE(source, key))`,
	`CREATE TABLE docs(id INTEGER PRIMARY KEY, unit INTEGER NOT NULL, uri TEXT NOT NULL, kind TEXT NOT NULL,
		source TEXT NOT NULL, status TEXT NOT NULL, date TEXT NOT NULL, tags TEXT NOT NULL,
		boost REAL NOT NULL)`,
	`CREATE INDEX docs_unit ON docs(unit)`,
	// porter: "orders" finds "order"; remove_diacritics: "café" finds "cafe".
	`CREATE VIRTUAL TABLE fts USING fts5(title, expanded, body, paths, tokenize = 'porter unicode61 remove_diacritics 2')`,
}

// ensureSchema creates the tables in a new file, and recreates them when
// the file holds another schema (which the versioned file name makes a
// hand-made accident, but a cache must survive accidents).
func ensureSchema(ctx context.Context, db *sql.DB) error {
	var v string
	err := db.QueryRowContext(ctx, `SELECT value FROM meta WHERE key = 'schema'`).Scan(&v)
	if err == nil && v == strconv.Itoa(schemaVersion) {
		return nil
	}
	if err != nil && isCorrupt(err) {
		return err
	}
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	// Another process may have created it while this one waited.
	if err := tx.QueryRowContext(ctx, `SELECT value FROM meta WHERE key = 'schema'`).Scan(&v); err == nil && v == strconv.Itoa(schemaVersion) {
		return nil
	}
	for _, t := range []string{"fts", "docs", "units", "sources", "meta"} {
		if _, err := tx.ExecContext(ctx, "DROP TABLE IF EXISTS "+t); err != nil {
			return err
		}
	}
	for _, stmt := range schema {
		if _, err := tx.ExecContext(ctx, stmt); err != nil {
			return err
		}
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO meta(key, value) VALUES ('schema', ?), ('created', ?)`,
		strconv.Itoa(schemaVersion), time.Now().UTC().Format(time.RFC3339)); err != nil {
		return err
	}
	return tx.Commit()
}

// isCorrupt reports whether err says the file is not a usable database,
// which for a cache means: throw it away.
func isCorrupt(err error) bool {
	var se *sqlite.Error
	if errors.As(err, &se) {
		switch se.Code() & 0xff {
		case sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB:
			return true
		}
	}
	return false
}

// recoverFrom replaces a corrupt database with an empty one, which the
// next refresh fills. It reports whether it did, so that the caller can
// retry the operation that failed.
func (ix *Index) recoverFrom(ctx context.Context, err error) bool {
	if !isCorrupt(err) {
		return false
	}
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if ix.closed {
		return false
	}
	ix.logf("index: %s is corrupt (%v); rebuilding it", ix.path, err)
	ix.background.Wait()
	ix.db.Close()
	if rerr := removeDBFiles(ix.path); rerr != nil {
		ix.logf("index: %v", rerr)
	}
	db, oerr := ix.tryOpen(ctx)
	if oerr != nil {
		ix.logf("index: reopening: %v", oerr)
		// Keep a handle that fails cleanly rather than a closed one.
		db, _ = sql.Open("sqlite", ix.dsn())
	}
	ix.db = db
	ix.dirty.Store(true) // the next query refreshes, whatever the interval
	return oerr == nil
}
