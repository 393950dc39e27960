// OpenLDAP's libldap (Debian's libldap-dev) for the Accounts target: the directory
// that LDAP sign-in searches and binds against. Its functions are not variadic, so
// Swift calls them directly; only the option setters get typed wrappers here.
#ifndef ALMANAC_CLDAP_SHIM_H
#define ALMANAC_CLDAP_SHIM_H

#include <ldap.h>
#include <sys/time.h>

/// ldap_set_option for an int option (LDAP_OPT_PROTOCOL_VERSION, LDAP_OPT_X_TLS_REQUIRE_CERT).
static inline int cldap_set_int(LDAP *handle, int option, int value) {
    return ldap_set_option(handle, option, &value);
}

/// ldap_set_option for a timeout (LDAP_OPT_NETWORK_TIMEOUT, LDAP_OPT_TIMEOUT), in seconds.
static inline int cldap_set_timeout(LDAP *handle, int option, int seconds) {
    struct timeval value = { seconds, 0 };
    return ldap_set_option(handle, option, &value);
}

/// Referrals off: a sign-in never follows the directory elsewhere.
static inline int cldap_no_referrals(LDAP *handle) {
    return ldap_set_option(handle, LDAP_OPT_REFERRALS, LDAP_OPT_OFF);
}

/// ldap_set_option for a string option (LDAP_OPT_X_TLS_CACERTFILE); libldap copies it.
static inline int cldap_set_string(LDAP *handle, int option, const char *value) {
    return ldap_set_option(handle, option, value);
}

/// A fresh TLS context for this handle, so the options set on it take effect.
static inline int cldap_new_tls_context(LDAP *handle) {
    int server = 0;
    return ldap_set_option(handle, LDAP_OPT_X_TLS_NEWCTX, &server);
}

#endif
