// The system SQLite (Debian's libsqlite3-dev) for the CalendarStore target.
#ifndef ALMANAC_CSQLITE_SHIM_H
#define ALMANAC_CSQLITE_SHIM_H

#include <sqlite3.h>

/// Binds text that SQLite copies before returning (SQLITE_TRANSIENT is a macro
/// casting -1 to a function pointer, which Swift cannot import).
static inline int csqlite_bind_text(sqlite3_stmt *statement, int index, const char *text, int length) {
    return sqlite3_bind_text(statement, index, text, length, SQLITE_TRANSIENT);
}

/// Binds a blob that SQLite copies before returning.
static inline int csqlite_bind_blob(sqlite3_stmt *statement, int index, const void *bytes, int length) {
    return sqlite3_bind_blob(statement, index, bytes, length, SQLITE_TRANSIENT);
}

#endif
