// libpq, PostgreSQL's client library (Debian's libpq-dev), for the CalendarStore target.
#ifndef ALMANAC_CLIBPQ_SHIM_H
#define ALMANAC_CLIBPQ_SHIM_H

#include <libpq-fe.h>

/// The SQLSTATE field of an error result (PG_DIAG_SQLSTATE is a character
/// constant macro, which Swift imports as an integer it cannot pass as is).
static inline const char *clibpq_sqlstate(const PGresult *result) {
    return PQresultErrorField(result, PG_DIAG_SQLSTATE);
}

/// The primary message of an error result.
static inline const char *clibpq_message(const PGresult *result) {
    return PQresultErrorField(result, PG_DIAG_MESSAGE_PRIMARY);
}

#endif
