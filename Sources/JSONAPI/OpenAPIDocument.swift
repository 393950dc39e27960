/// The OpenAPI 3.1 description of the JSON API, served at `/api/v1/openapi.json`.
/// A test checks that its paths and methods are exactly the routes.
enum OpenAPIDocument {
    static let json = #"""
{
  "openapi": "3.1.0",
  "info": {
    "title": "Almanac API",
    "version": "1",
    "description": "Calendars, events, occurrences, alarms, availability and Add to Calendar. Errors are RFC 9457 problem documents."
  },
  "servers": [
    {
      "url": "/"
    }
  ],
  "security": [
    {
      "basic": []
    },
    {
      "bearer": []
    }
  ],
  "components": {
    "securitySchemes": {
      "basic": {
        "type": "http",
        "scheme": "basic"
      },
      "bearer": {
        "type": "http",
        "scheme": "bearer",
        "description": "A personal token from 'almanac token create'"
      }
    },
    "schemas": {
      "Problem": {
        "type": "object",
        "required": [
          "type",
          "title",
          "status",
          "detail"
        ],
        "properties": {
          "type": {
            "type": "string",
            "description": "urn:almanac:problem:<kind>, stable per kind of error"
          },
          "title": {
            "type": "string"
          },
          "status": {
            "type": "integer"
          },
          "detail": {
            "type": "string"
          },
          "fields": {
            "type": "array",
            "items": {
              "type": "string"
            }
          },
          "conflicts": {
            "type": "array",
            "items": {
              "$ref": "#/components/schemas/Conflict"
            }
          },
          "truncated": {
            "type": "boolean",
            "description": "Beside conflicts: the proposed event had more occurrences than were checked"
          }
        }
      },
      "Calendar": {
        "type": "object",
        "required": [
          "id",
          "title",
          "color",
          "description",
          "timeZone",
          "order",
          "componentTypes",
          "etag"
        ],
        "properties": {
          "id": {
            "type": "string"
          },
          "title": {
            "type": "string"
          },
          "color": {
            "type": [
              "string",
              "null"
            ]
          },
          "description": {
            "type": [
              "string",
              "null"
            ]
          },
          "timeZone": {
            "type": [
              "string",
              "null"
            ]
          },
          "order": {
            "type": "integer"
          },
          "componentTypes": {
            "type": "array",
            "items": {
              "type": "string",
              "enum": [
                "VEVENT",
                "VTODO",
                "VJOURNAL"
              ]
            }
          },
          "etag": {
            "type": "string"
          }
        }
      },
      "CalendarInput": {
        "type": "object",
        "additionalProperties": false,
        "properties": {
          "title": {
            "type": "string",
            "minLength": 1
          },
          "color": {
            "type": [
              "string",
              "null"
            ],
            "pattern": "^#([0-9A-Fa-f]{6}|[0-9A-Fa-f]{8})$"
          },
          "description": {
            "type": [
              "string",
              "null"
            ]
          },
          "timeZone": {
            "type": [
              "string",
              "null"
            ]
          },
          "order": {
            "type": "integer"
          },
          "componentTypes": {
            "type": "array",
            "minItems": 1,
            "items": {
              "type": "string",
              "enum": [
                "VEVENT",
                "VTODO",
                "VJOURNAL"
              ]
            }
          }
        }
      },
      "Alarm": {
        "type": "object",
        "properties": {
          "minutesBefore": {
            "type": [
              "integer",
              "null"
            ]
          },
          "trigger": {
            "type": "string",
            "description": "-PT15M, END:PT0S, or a UTC date-time"
          },
          "action": {
            "type": [
              "string",
              "null"
            ],
            "enum": [
              "DISPLAY",
              "AUDIO",
              "EMAIL",
              null
            ]
          }
        },
        "additionalProperties": false
      },
      "Event": {
        "type": "object",
        "required": [
          "id",
          "uid",
          "calendarId",
          "etag",
          "title",
          "start",
          "end",
          "allDay",
          "timeZone",
          "rrule",
          "exdates",
          "alarms",
          "availability",
          "status",
          "categories",
          "sequence",
          "jcal"
        ],
        "properties": {
          "id": {
            "type": [
              "string",
              "null"
            ]
          },
          "uid": {
            "type": "string"
          },
          "calendarId": {
            "type": [
              "string",
              "null"
            ]
          },
          "etag": {
            "type": [
              "string",
              "null"
            ]
          },
          "title": {
            "type": [
              "string",
              "null"
            ]
          },
          "notes": {
            "type": [
              "string",
              "null"
            ]
          },
          "location": {
            "type": [
              "string",
              "null"
            ]
          },
          "url": {
            "type": [
              "string",
              "null"
            ]
          },
          "start": {
            "type": [
              "string",
              "null"
            ]
          },
          "end": {
            "type": [
              "string",
              "null"
            ]
          },
          "allDay": {
            "type": "boolean"
          },
          "timeZone": {
            "type": [
              "string",
              "null"
            ]
          },
          "rrule": {
            "type": [
              "string",
              "null"
            ]
          },
          "exdates": {
            "type": "array",
            "items": {
              "type": "string"
            }
          },
          "alarms": {
            "type": "array",
            "items": {
              "$ref": "#/components/schemas/Alarm"
            }
          },
          "availability": {
            "type": "string",
            "enum": [
              "busy",
              "free"
            ]
          },
          "status": {
            "type": [
              "string",
              "null"
            ]
          },
          "categories": {
            "type": "array",
            "items": {
              "type": "string"
            }
          },
          "sequence": {
            "type": "integer"
          },
          "recurrenceId": {
            "type": [
              "string",
              "null"
            ]
          },
          "jcal": {
            "type": [
              "array",
              "null"
            ],
            "description": "The component as jCal (RFC 7265)"
          }
        }
      },
      "EventInput": {
        "type": "object",
        "additionalProperties": false,
        "description": "null clears a member. Read-only members (id, etag, sequence, recurrenceId) are accepted and ignored.",
        "properties": {
          "calendarId": {
            "type": "string"
          },
          "uid": {
            "type": "string"
          },
          "title": {
            "type": [
              "string",
              "null"
            ]
          },
          "notes": {
            "type": [
              "string",
              "null"
            ]
          },
          "location": {
            "type": [
              "string",
              "null"
            ]
          },
          "url": {
            "type": [
              "string",
              "null"
            ]
          },
          "start": {
            "type": "string",
            "description": "2026-12-01 (date), 2026-12-01T11:00:00Z (UTC) or 2026-12-01T12:00:00 (wall clock in timeZone, or floating)"
          },
          "end": {
            "type": [
              "string",
              "null"
            ]
          },
          "duration": {
            "type": [
              "string",
              "null"
            ],
            "description": "ISO 8601, such as PT1H30M"
          },
          "timeZone": {
            "type": [
              "string",
              "null"
            ]
          },
          "allDay": {
            "type": "boolean"
          },
          "rrule": {
            "type": [
              "string",
              "null"
            ]
          },
          "exdates": {
            "type": "array",
            "items": {
              "type": "string"
            }
          },
          "alarms": {
            "type": "array",
            "items": {
              "$ref": "#/components/schemas/Alarm"
            }
          },
          "availability": {
            "type": "string",
            "enum": [
              "busy",
              "free"
            ]
          },
          "status": {
            "type": [
              "string",
              "null"
            ],
            "enum": [
              "confirmed",
              "tentative",
              "cancelled",
              null
            ]
          },
          "categories": {
            "type": "array",
            "items": {
              "type": "string"
            }
          },
          "jcal": {
            "type": [
              "array",
              "null"
            ]
          },
          "id": {},
          "etag": {},
          "sequence": {},
          "recurrenceId": {}
        }
      },
      "Occurrence": {
        "type": "object",
        "required": [
          "id",
          "eventId",
          "calendarId",
          "title",
          "start",
          "end",
          "allDay",
          "timeZone",
          "recurrenceId",
          "detached",
          "status",
          "etag"
        ],
        "properties": {
          "id": {
            "type": "string",
            "description": "Stable: the event id, then / and the RECURRENCE-ID for an instance of a series"
          },
          "eventId": {
            "type": "string"
          },
          "calendarId": {
            "type": "string"
          },
          "title": {
            "type": [
              "string",
              "null"
            ]
          },
          "start": {
            "type": "string"
          },
          "end": {
            "type": "string"
          },
          "allDay": {
            "type": "boolean"
          },
          "timeZone": {
            "type": [
              "string",
              "null"
            ]
          },
          "recurrenceId": {
            "type": [
              "string",
              "null"
            ]
          },
          "detached": {
            "type": "boolean"
          },
          "status": {
            "type": [
              "string",
              "null"
            ]
          },
          "etag": {
            "type": "string"
          }
        }
      },
      "AlarmFiring": {
        "type": "object",
        "required": [
          "fireTime",
          "repetition",
          "alarm",
          "occurrence"
        ],
        "properties": {
          "fireTime": {
            "type": "string"
          },
          "repetition": {
            "type": "integer"
          },
          "alarm": {
            "$ref": "#/components/schemas/Alarm"
          },
          "occurrence": {
            "$ref": "#/components/schemas/Occurrence"
          }
        }
      },
      "TruncatedSeries": {
        "type": "object",
        "description": "A series whose expansion a bound stopped before the end of the asked range",
        "required": [
          "eventId",
          "uid",
          "lastListedStart"
        ],
        "properties": {
          "eventId": {
            "type": "string"
          },
          "calendarId": {
            "type": "string"
          },
          "uid": {
            "type": "string"
          },
          "title": {
            "type": [
              "string",
              "null"
            ]
          },
          "listed": {
            "type": "integer",
            "description": "How many of its instances in the range were expanded"
          },
          "lastListedStart": {
            "type": [
              "string",
              "null"
            ],
            "description": "The start (UTC) of the last instance expanded; null when none was"
          }
        }
      },
      "SummaryDay": {
        "type": "object",
        "required": [
          "date",
          "count",
          "colors",
          "titles",
          "conflict"
        ],
        "properties": {
          "date": {
            "type": "string"
          },
          "count": {
            "type": "integer"
          },
          "colors": {
            "type": "array",
            "items": {
              "type": "string"
            }
          },
          "titles": {
            "type": "array",
            "items": {
              "type": "string"
            }
          },
          "conflict": {
            "type": "boolean"
          },
          "inMonth": {
            "type": "boolean"
          }
        }
      },
      "Link": {
        "type": "object",
        "required": [
          "url",
          "lost"
        ],
        "properties": {
          "url": {
            "type": "string"
          },
          "lost": {
            "$ref": "#/components/schemas/Losses"
          }
        }
      },
      "Losses": {
        "type": "array",
        "items": {
          "type": "string",
          "enum": [
            "recurrence",
            "recurrence-exceptions",
            "alarms",
            "time-zone",
            "url",
            "availability"
          ]
        }
      },
      "BridgePayload": {
        "type": "object",
        "additionalProperties": false,
        "required": [
          "name",
          "startsAtInMillisecondsSinceEpoch",
          "endsAtInMillisecondsSinceEpoch",
          "allDay",
          "allDayStartAtInMillisecondsSinceEpoch",
          "allDayEndsAtInMillisecondsSinceEpoch",
          "location",
          "rrule",
          "notes",
          "url",
          "timeZone",
          "alarmMinutesBefore"
        ],
        "properties": {
          "name": {
            "type": "string"
          },
          "startsAtInMillisecondsSinceEpoch": {
            "type": "integer"
          },
          "endsAtInMillisecondsSinceEpoch": {
            "type": "integer"
          },
          "allDay": {
            "type": "boolean"
          },
          "allDayStartAtInMillisecondsSinceEpoch": {
            "type": "integer"
          },
          "allDayEndsAtInMillisecondsSinceEpoch": {
            "type": "integer"
          },
          "location": {
            "type": [
              "string",
              "null"
            ]
          },
          "rrule": {
            "type": [
              "string",
              "null"
            ]
          },
          "notes": {
            "type": [
              "string",
              "null"
            ]
          },
          "url": {
            "type": [
              "string",
              "null"
            ]
          },
          "timeZone": {
            "type": [
              "string",
              "null"
            ]
          },
          "alarmMinutesBefore": {
            "type": [
              "integer",
              "null"
            ]
          }
        }
      },
      "AddToCalendar": {
        "type": "object",
        "required": [
          "bridge",
          "bridgeLost",
          "android",
          "google",
          "outlook",
          "office365",
          "yahoo",
          "ics"
        ],
        "properties": {
          "bridge": {
            "$ref": "#/components/schemas/BridgePayload"
          },
          "bridgeLost": {
            "$ref": "#/components/schemas/Losses"
          },
          "android": {
            "type": "object",
            "required": [
              "extras",
              "uri",
              "lost"
            ],
            "properties": {
              "extras": {
                "type": "object",
                "required": [
                  "title",
                  "beginTime",
                  "endTime",
                  "allDay",
                  "eventLocation",
                  "description",
                  "rrule",
                  "eventTimezone",
                  "availability"
                ],
                "properties": {
                  "title": {
                    "type": "string"
                  },
                  "beginTime": {
                    "type": "integer"
                  },
                  "endTime": {
                    "type": "integer"
                  },
                  "allDay": {
                    "type": "boolean"
                  },
                  "eventLocation": {
                    "type": [
                      "string",
                      "null"
                    ]
                  },
                  "description": {
                    "type": [
                      "string",
                      "null"
                    ]
                  },
                  "rrule": {
                    "type": [
                      "string",
                      "null"
                    ]
                  },
                  "eventTimezone": {
                    "type": "string"
                  },
                  "availability": {
                    "type": "integer",
                    "enum": [
                      0,
                      1,
                      2
                    ]
                  }
                }
              },
              "uri": {
                "type": "string"
              },
              "lost": {
                "$ref": "#/components/schemas/Losses"
              }
            }
          },
          "google": {
            "$ref": "#/components/schemas/Link"
          },
          "outlook": {
            "$ref": "#/components/schemas/Link"
          },
          "office365": {
            "$ref": "#/components/schemas/Link"
          },
          "yahoo": {
            "$ref": "#/components/schemas/Link"
          },
          "ics": {
            "$ref": "#/components/schemas/Link"
          }
        }
      },
      "AddedMark": {
        "type": "object",
        "required": [
          "eventId",
          "platform",
          "nativeIdentifier",
          "added"
        ],
        "properties": {
          "eventId": {
            "type": "string"
          },
          "platform": {
            "type": [
              "string",
              "null"
            ],
            "enum": [
              "ios",
              "android",
              "web",
              null
            ]
          },
          "nativeIdentifier": {
            "type": [
              "string",
              "null"
            ]
          },
          "added": {
            "type": "string"
          }
        }
      },
      "Slot": {
        "type": "object",
        "required": [
          "start",
          "end"
        ],
        "properties": {
          "start": {
            "type": "string"
          },
          "end": {
            "type": "string"
          }
        }
      },
      "Conflict": {
        "type": "object",
        "required": [
          "occurrence",
          "with",
          "reason"
        ],
        "properties": {
          "occurrence": {
            "$ref": "#/components/schemas/Slot"
          },
          "with": {
            "type": "object",
            "required": [
              "eventId",
              "occurrenceId",
              "title",
              "start",
              "end"
            ],
            "properties": {
              "eventId": {
                "type": "string"
              },
              "occurrenceId": {
                "type": "string"
              },
              "title": {
                "type": [
                  "string",
                  "null"
                ]
              },
              "start": {
                "type": "string"
              },
              "end": {
                "type": "string"
              }
            }
          },
          "reason": {
            "type": "string",
            "enum": [
              "overlap",
              "buffer"
            ]
          }
        }
      }
    },
    "parameters": {
      "CalendarID": {
        "name": "id",
        "in": "path",
        "required": true,
        "description": "Calendar id",
        "schema": {
          "type": "string"
        }
      },
      "Calendars": {
        "name": "calendars",
        "in": "query",
        "required": false,
        "description": "Comma-separated calendar ids (default: all)",
        "schema": {
          "type": "string"
        }
      },
      "EventID": {
        "name": "id",
        "in": "path",
        "required": true,
        "description": "Event id",
        "schema": {
          "type": "string"
        }
      },
      "Occurrence": {
        "name": "occurrence",
        "in": "query",
        "required": false,
        "description": "One occurrence: its RECURRENCE-ID as in occurrence ids",
        "schema": {
          "type": "string"
        }
      },
      "OccurrenceZone": {
        "name": "tz",
        "in": "query",
        "required": false,
        "description": "IANA zone for floating and all-day times",
        "schema": {
          "type": "string"
        }
      },
      "EventIDInPath": {
        "name": "eventId",
        "in": "path",
        "required": true,
        "description": "Event id",
        "schema": {
          "type": "string"
        }
      },
      "From": {
        "name": "from",
        "in": "query",
        "required": true,
        "description": "Start: a date (in tz) or a date-time",
        "schema": {
          "type": "string"
        }
      },
      "IfMatch": {
        "name": "If-Match",
        "in": "header",
        "required": false,
        "description": "The ETag the change is based on (412 when stale)",
        "schema": {
          "type": "string"
        }
      },
      "RecurrenceID": {
        "name": "recurrenceId",
        "in": "path",
        "required": true,
        "description": "RECURRENCE-ID",
        "schema": {
          "type": "string"
        }
      },
      "Span": {
        "name": "span",
        "in": "query",
        "required": false,
        "description": "this or future",
        "schema": {
          "type": "string",
          "enum": [
            "this",
            "future"
          ]
        }
      },
      "TimeZone": {
        "name": "tz",
        "in": "query",
        "required": false,
        "description": "IANA time zone for dates and floating times",
        "schema": {
          "type": "string"
        }
      },
      "To": {
        "name": "to",
        "in": "query",
        "required": true,
        "description": "End, exclusive",
        "schema": {
          "type": "string"
        }
      }
    },
    "responses": {
      "Problem": {
        "description": "An error (RFC 9457)",
        "content": {
          "application/problem+json": {
            "schema": {
              "$ref": "#/components/schemas/Problem"
            }
          }
        }
      }
    }
  },
  "paths": {
    "/api/v1/openapi.json": {
      "get": {
        "operationId": "openapi",
        "summary": "This document",
        "security": [],
        "responses": {
          "200": {
            "description": "OK",
            "content": {
              "application/json": {
                "schema": {
                  "type": "object"
                }
              }
            }
          },
          "default": {
            "$ref": "#/components/responses/Problem"
          }
        }
      }
    },
    "/api/v1/calendars": {
      "get": {
        "operationId": "listCalendars",
        "summary": "The user's calendars",
        "responses": {
          "200": {
            "description": "OK",
            "content": {
              "application/json": {
                "schema": {
                  "type": "object",
                  "required": [
                    "calendars"
                  ],
                  "properties": {
                    "calendars": {
                      "type": "array",
                      "items": {
                        "$ref": "#/components/schemas/Calendar"
                      }
                    }
                  }
                }
              }
            }
          },
          "default": {
            "$ref": "#/components/responses/Problem"
          }
        }
      },
      "post": {
        "operationId": "createCalendar",
        "summary": "A new calendar",
        "requestBody": {
          "required": true,
          "content": {
            "application/json": {
              "schema": {
                "$ref": "#/components/schemas/CalendarInput"
              }
            }
          }
        },
        "responses": {
          "201": {
            "description": "Created",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Calendar"
                }
              }
            },
            "links": {
              "GetCalendar": {
                "operationId": "getCalendar",
                "parameters": {
                  "id": "$response.body#/id"
                }
              },
              "UpdateCalendar": {
                "operationId": "updateCalendar",
                "parameters": {
                  "id": "$response.body#/id"
                }
              },
              "ListOccurrences": {
                "operationId": "listOccurrences",
                "parameters": {
                  "id": "$response.body#/id"
                }
              },
              "RemoveMatching": {
                "operationId": "removeMatching",
                "parameters": {
                  "id": "$response.body#/id"
                }
              },
              "DeleteCalendar": {
                "operationId": "deleteCalendar",
                "parameters": {
                  "id": "$response.body#/id"
                }
              }
            }
          },
          "default": {
            "$ref": "#/components/responses/Problem"
          }
        }
      }
    },
    "/api/v1/calendars/by-title/{title}": {
      "put": {
        "operationId": "findOrCreateCalendar",
        "summary": "The calendar with this title, created (201) when missing",
        "parameters": [
          {
            "name": "title",
            "in": "path",
            "required": true,
            "description": "The calendar's title",
            "schema": {
              "type": "string"
            }
          }
        ],
        "requestBody": {
          "required": false,
          "content": {
            "application/json": {
              "schema": {
                "$ref": "#/components/schemas/CalendarInput"
              }
            }
          }
        },
        "responses": {
          "200": {
            "description": "Found",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Calendar"
                }
              }
            }
          },
          "201": {
            "description": "Created",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Calendar"
                }
              }
            },
            "links": {
              "GetCalendar": {
                "operationId": "getCalendar",
                "parameters": {
                  "id": "$response.body#/id"
                }
              },
              "UpdateCalendar": {
                "operationId": "updateCalendar",
                "parameters": {
                  "id": "$response.body#/id"
                }
              },
              "ListOccurrences": {
                "operationId": "listOccurrences",
                "parameters": {
                  "id": "$response.body#/id"
                }
              },
              "RemoveMatching": {
                "operationId": "removeMatching",
                "parameters": {
                  "id": "$response.body#/id"
                }
              },
              "DeleteCalendar": {
                "operationId": "deleteCalendar",
                "parameters": {
                  "id": "$response.body#/id"
                }
              }
            }
          },
          "default": {
            "$ref": "#/components/responses/Problem"
          }
        }
      }
    },
    "/api/v1/calendars/{id}": {
      "get": {
        "operationId": "getCalendar",
        "parameters": [
          {
            "$ref": "#/components/parameters/CalendarID"
          }
        ],
        "responses": {
          "200": {
            "description": "OK",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Calendar"
                }
              }
            }
          },
          "default": {
            "$ref": "#/components/responses/Problem"
          }
        }
      },
      "patch": {
        "operationId": "updateCalendar",
        "parameters": [
          {
            "$ref": "#/components/parameters/CalendarID"
          },
          {
            "$ref": "#/components/parameters/IfMatch"
          }
        ],
        "requestBody": {
          "required": true,
          "content": {
            "application/json": {
              "schema": {
                "$ref": "#/components/schemas/CalendarInput"
              }
            }
          }
        },
        "responses": {
          "200": {
            "description": "OK",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Calendar"
                }
              }
            }
          },
          "default": {
            "$ref": "#/components/responses/Problem"
          }
        }
      },
      "delete": {
        "operationId": "deleteCalendar",
        "parameters": [
          {
            "$ref": "#/components/parameters/CalendarID"
          },
          {
            "$ref": "#/components/parameters/IfMatch"
          }
        ],
        "responses": {
          "204": {
            "description": "Done"
          },
          "default": {
            "$ref": "#/components/responses/Problem"
          }
        }
      }
    },
    "/api/v1/calendars/{id}/occurrences": {
      "get": {
        "operationId": "listOccurrences",
        "summary": "Expanded instances in a range",
        "parameters": [
          {
            "$ref": "#/components/parameters/CalendarID"
          },
          {
            "$ref": "#/components/parameters/From"
          },
          {
            "$ref": "#/components/parameters/To"
          },
          {
            "$ref": "#/components/parameters/TimeZone"
          },
          {
            "name": "title",
            "in": "query",
            "required": false,
            "description": "Only titles containing this (ignoring case)",
            "schema": {
              "type": "string"
            }
          }
        ],
        "responses": {
          "200": {
            "description": "OK",
            "content": {
              "application/json": {
                "schema": {
                  "type": "object",
                  "required": [
                    "occurrences",
                    "truncated"
                  ],
                  "properties": {
                    "occurrences": {
                      "type": "array",
                      "items": {
                        "$ref": "#/components/schemas/Occurrence"
                      }
                    },
                    "truncated": {
                      "type": "boolean",
                      "description": "True when the answer lists only the first 10,000 items, or a series had more instances in the range than one series may (100,000); continueFrom says where the rest begin"
                    },
                    "continueFrom": {
                      "type": "string",
                      "description": "With truncated: the time (UTC) of the first item left out; ask again from there for the rest"
                    },
                    "truncatedSeries": {
                      "type": "array",
                      "description": "With truncated by a bound of expansion: each series cut, listed up to lastListedStart (every occurrence starting before continueFrom is in the answer)",
                      "items": {
                        "$ref": "#/components/schemas/TruncatedSeries"
                      }
                    }
                  }
                }
              }
            }
          },
          "default": {
            "$ref": "#/components/responses/Problem"
          }
        }
      }
    },
    "/api/v1/calendars/{id}/events": {
      "delete": {
        "operationId": "removeMatching",
        "summary": "Removes the occurrences in a range (with a title) and returns them",
        "parameters": [
          {
            "$ref": "#/components/parameters/CalendarID"
          },
          {
            "$ref": "#/components/parameters/From"
          },
          {
            "$ref": "#/components/parameters/To"
          },
          {
            "$ref": "#/components/parameters/TimeZone"
          },
          {
            "name": "title",
            "in": "query",
            "required": false,
            "description": "Only this title (ignoring case)",
            "schema": {
              "type": "string"
            }
          }
        ],
        "responses": {
          "200": {
            "description": "OK",
            "content": {
              "application/json": {
                "schema": {
                  "type": "object",
                  "required": [
                    "removed"
                  ],
                  "properties": {
                    "removed": {
                      "type": "array",
                      "items": {
                        "$ref": "#/components/schemas/Occurrence"
                      }
                    }
                  }
                }
              }
            }
          },
          "default": {
            "$ref": "#/components/responses/Problem"
          }
        }
      }
    },
    "/api/v1/events": {
      "post": {
        "operationId": "createEvent",
        "summary": "A new event (calendarId in the body)",
        "parameters": [
          {
            "name": "rejectConflicts",
            "in": "query",
            "required": false,
            "description": "true: 409 with the conflicts instead of saving. Only the event's first 1,000 occurrences in the next maxRangeDays days are checked: a 409 says truncated, a 201 carries a Warning header when it had more",
            "schema": {
              "type": "string",
              "enum": [
                "true",
                "false"
              ]
            }
          },
          {
            "name": "calendars",
            "in": "query",
            "required": false,
            "description": "Calendars checked for conflicts (default: all), comma-separated",
            "schema": {
              "type": "string"
            }
          }
        ],
        "requestBody": {
          "required": true,
          "content": {
            "application/json": {
              "schema": {
                "$ref": "#/components/schemas/EventInput"
              }
            }
          }
        },
        "responses": {
          "201": {
            "description": "Created",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Event"
                }
              }
            },
            "links": {
              "GetEvent": {
                "operationId": "getEvent",
                "parameters": {
                  "id": "$response.body#/id"
                }
              },
              "ReplaceEvent": {
                "operationId": "replaceEvent",
                "parameters": {
                  "id": "$response.body#/id"
                }
              },
              "UpdateEvent": {
                "operationId": "updateEvent",
                "parameters": {
                  "id": "$response.body#/id"
                }
              },
              "AddToCalendar": {
                "operationId": "addToCalendar",
                "parameters": {
                  "id": "$response.body#/id"
                }
              },
              "MarkAdded": {
                "operationId": "markAdded",
                "parameters": {
                  "id": "$response.body#/id"
                }
              },
              "GetAdded": {
                "operationId": "getAdded",
                "parameters": {
                  "id": "$response.body#/id"
                }
              },
              "UnmarkAdded": {
                "operationId": "unmarkAdded",
                "parameters": {
                  "id": "$response.body#/id"
                }
              },
              "EventICS": {
                "operationId": "eventICS",
                "parameters": {
                  "id": "$response.body#/id"
                }
              },
              "DeleteEvent": {
                "operationId": "deleteEvent",
                "parameters": {
                  "id": "$response.body#/id"
                }
              },
              "GetSingleOccurrence": {
                "operationId": "getSingleOccurrence",
                "parameters": {
                  "eventId": "$response.body#/id"
                }
              }
            }
          },
          "default": {
            "$ref": "#/components/responses/Problem"
          }
        }
      }
    },
    "/api/v1/events/{id}": {
      "get": {
        "operationId": "getEvent",
        "parameters": [
          {
            "$ref": "#/components/parameters/EventID"
          }
        ],
        "responses": {
          "200": {
            "description": "OK",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Event"
                }
              }
            }
          },
          "default": {
            "$ref": "#/components/responses/Problem"
          }
        }
      },
      "put": {
        "operationId": "replaceEvent",
        "parameters": [
          {
            "$ref": "#/components/parameters/EventID"
          },
          {
            "$ref": "#/components/parameters/IfMatch"
          }
        ],
        "requestBody": {
          "required": true,
          "content": {
            "application/json": {
              "schema": {
                "$ref": "#/components/schemas/EventInput"
              }
            }
          }
        },
        "responses": {
          "200": {
            "description": "OK",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Event"
                }
              }
            }
          },
          "default": {
            "$ref": "#/components/responses/Problem"
          }
        }
      },
      "patch": {
        "operationId": "updateEvent",
        "parameters": [
          {
            "$ref": "#/components/parameters/EventID"
          },
          {
            "$ref": "#/components/parameters/IfMatch"
          }
        ],
        "requestBody": {
          "required": true,
          "content": {
            "application/json": {
              "schema": {
                "$ref": "#/components/schemas/EventInput"
              }
            }
          }
        },
        "responses": {
          "200": {
            "description": "OK",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Event"
                }
              }
            }
          },
          "default": {
            "$ref": "#/components/responses/Problem"
          }
        }
      },
      "delete": {
        "operationId": "deleteEvent",
        "parameters": [
          {
            "$ref": "#/components/parameters/EventID"
          },
          {
            "$ref": "#/components/parameters/IfMatch"
          }
        ],
        "responses": {
          "204": {
            "description": "Done"
          },
          "default": {
            "$ref": "#/components/responses/Problem"
          }
        }
      }
    },
    "/api/v1/events/{id}/add-to-calendar": {
      "get": {
        "operationId": "addToCalendar",
        "summary": "Bridge payload, Android intent, web links and .ics",
        "parameters": [
          {
            "$ref": "#/components/parameters/EventID"
          },
          {
            "$ref": "#/components/parameters/Occurrence"
          },
          {
            "$ref": "#/components/parameters/OccurrenceZone"
          }
        ],
        "responses": {
          "200": {
            "description": "OK",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/AddToCalendar"
                }
              }
            }
          },
          "default": {
            "$ref": "#/components/responses/Problem"
          }
        }
      }
    },
    "/api/v1/events/{id}/added": {
      "get": {
        "operationId": "getAdded",
        "parameters": [
          {
            "$ref": "#/components/parameters/EventID"
          }
        ],
        "responses": {
          "200": {
            "description": "OK",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/AddedMark"
                }
              }
            }
          },
          "default": {
            "$ref": "#/components/responses/Problem"
          }
        }
      },
      "put": {
        "operationId": "markAdded",
        "summary": "Idempotent",
        "parameters": [
          {
            "$ref": "#/components/parameters/EventID"
          }
        ],
        "requestBody": {
          "required": false,
          "content": {
            "application/json": {
              "schema": {
                "type": "object",
                "additionalProperties": false,
                "properties": {
                  "platform": {
                    "type": [
                      "string",
                      "null"
                    ],
                    "enum": [
                      "ios",
                      "android",
                      "web",
                      null
                    ]
                  },
                  "nativeIdentifier": {
                    "type": [
                      "string",
                      "null"
                    ]
                  }
                }
              }
            }
          }
        },
        "responses": {
          "200": {
            "description": "OK",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/AddedMark"
                }
              }
            }
          },
          "default": {
            "$ref": "#/components/responses/Problem"
          }
        }
      },
      "delete": {
        "operationId": "unmarkAdded",
        "parameters": [
          {
            "$ref": "#/components/parameters/EventID"
          }
        ],
        "responses": {
          "204": {
            "description": "Done"
          },
          "default": {
            "$ref": "#/components/responses/Problem"
          }
        }
      }
    },
    "/api/v1/occurrences/{eventId}": {
      "get": {
        "operationId": "getSingleOccurrence",
        "parameters": [
          {
            "name": "eventId",
            "in": "path",
            "required": true,
            "description": "A one-off event's id",
            "schema": {
              "type": "string"
            }
          },
          {
            "$ref": "#/components/parameters/TimeZone"
          }
        ],
        "responses": {
          "200": {
            "description": "OK",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Occurrence"
                }
              }
            }
          },
          "default": {
            "$ref": "#/components/responses/Problem"
          }
        }
      },
      "patch": {
        "operationId": "updateSingleOccurrence",
        "parameters": [
          {
            "$ref": "#/components/parameters/EventIDInPath"
          },
          {
            "$ref": "#/components/parameters/IfMatch"
          },
          {
            "$ref": "#/components/parameters/Span"
          },
          {
            "$ref": "#/components/parameters/TimeZone"
          }
        ],
        "requestBody": {
          "required": true,
          "content": {
            "application/json": {
              "schema": {
                "$ref": "#/components/schemas/EventInput"
              }
            }
          }
        },
        "responses": {
          "200": {
            "description": "OK",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Event"
                }
              }
            }
          },
          "default": {
            "$ref": "#/components/responses/Problem"
          }
        }
      },
      "delete": {
        "operationId": "deleteSingleOccurrence",
        "parameters": [
          {
            "$ref": "#/components/parameters/EventIDInPath"
          },
          {
            "$ref": "#/components/parameters/IfMatch"
          },
          {
            "$ref": "#/components/parameters/Span"
          },
          {
            "$ref": "#/components/parameters/TimeZone"
          }
        ],
        "responses": {
          "204": {
            "description": "Done"
          },
          "default": {
            "$ref": "#/components/responses/Problem"
          }
        }
      }
    },
    "/api/v1/occurrences/{eventId}/{recurrenceId}": {
      "get": {
        "operationId": "getOccurrence",
        "parameters": [
          {
            "$ref": "#/components/parameters/EventIDInPath"
          },
          {
            "name": "recurrenceId",
            "in": "path",
            "required": true,
            "description": "RECURRENCE-ID as in the occurrence id",
            "schema": {
              "type": "string"
            }
          },
          {
            "$ref": "#/components/parameters/TimeZone"
          }
        ],
        "responses": {
          "200": {
            "description": "OK",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Occurrence"
                }
              }
            }
          },
          "default": {
            "$ref": "#/components/responses/Problem"
          }
        }
      },
      "patch": {
        "operationId": "updateOccurrence",
        "parameters": [
          {
            "$ref": "#/components/parameters/EventIDInPath"
          },
          {
            "$ref": "#/components/parameters/RecurrenceID"
          },
          {
            "$ref": "#/components/parameters/IfMatch"
          },
          {
            "$ref": "#/components/parameters/Span"
          },
          {
            "$ref": "#/components/parameters/TimeZone"
          }
        ],
        "requestBody": {
          "required": true,
          "content": {
            "application/json": {
              "schema": {
                "$ref": "#/components/schemas/EventInput"
              }
            }
          }
        },
        "responses": {
          "200": {
            "description": "OK",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Event"
                }
              }
            }
          },
          "default": {
            "$ref": "#/components/responses/Problem"
          }
        }
      },
      "delete": {
        "operationId": "deleteOccurrence",
        "parameters": [
          {
            "$ref": "#/components/parameters/EventIDInPath"
          },
          {
            "$ref": "#/components/parameters/RecurrenceID"
          },
          {
            "$ref": "#/components/parameters/IfMatch"
          },
          {
            "$ref": "#/components/parameters/Span"
          },
          {
            "$ref": "#/components/parameters/TimeZone"
          }
        ],
        "responses": {
          "204": {
            "description": "Done"
          },
          "default": {
            "$ref": "#/components/responses/Problem"
          }
        }
      }
    },
    "/api/v1/alarms": {
      "get": {
        "operationId": "dueAlarms",
        "parameters": [
          {
            "$ref": "#/components/parameters/From"
          },
          {
            "$ref": "#/components/parameters/To"
          },
          {
            "$ref": "#/components/parameters/TimeZone"
          },
          {
            "$ref": "#/components/parameters/Calendars"
          }
        ],
        "responses": {
          "200": {
            "description": "OK",
            "content": {
              "application/json": {
                "schema": {
                  "type": "object",
                  "required": [
                    "alarms",
                    "truncated"
                  ],
                  "properties": {
                    "alarms": {
                      "type": "array",
                      "items": {
                        "$ref": "#/components/schemas/AlarmFiring"
                      }
                    },
                    "truncated": {
                      "type": "boolean",
                      "description": "True when the answer lists only the first 10,000 items; continueFrom says where the rest begin"
                    },
                    "continueFrom": {
                      "type": "string",
                      "description": "With truncated: the time (UTC) of the first item left out; ask again from there for the rest"
                    }
                  }
                }
              }
            }
          },
          "default": {
            "$ref": "#/components/responses/Problem"
          }
        }
      }
    },
    "/api/v1/summary": {
      "get": {
        "operationId": "summary",
        "summary": "Per-day counts, colours, titles and conflicts of a month grid or a week",
        "parameters": [
          {
            "$ref": "#/components/parameters/Calendars"
          },
          {
            "name": "month",
            "in": "query",
            "required": false,
            "description": "YYYY-MM",
            "schema": {
              "type": "string"
            }
          },
          {
            "name": "week",
            "in": "query",
            "required": false,
            "description": "ISO week, YYYY-Www",
            "schema": {
              "type": "string"
            }
          },
          {
            "name": "tz",
            "in": "query",
            "required": false,
            "description": "IANA zone of the days",
            "schema": {
              "type": "string"
            }
          },
          {
            "name": "firstWeekday",
            "in": "query",
            "required": false,
            "description": "First column",
            "schema": {
              "type": "string",
              "enum": [
                "monday",
                "tuesday",
                "wednesday",
                "thursday",
                "friday",
                "saturday",
                "sunday"
              ]
            }
          },
          {
            "name": "titles",
            "in": "query",
            "required": false,
            "description": "Titles per day (0 to 20, default 3)",
            "schema": {
              "type": "integer",
              "minimum": 0,
              "maximum": 20
            }
          }
        ],
        "responses": {
          "200": {
            "description": "OK",
            "content": {
              "application/json": {
                "schema": {
                  "type": "object",
                  "required": [
                    "timeZone",
                    "firstWeekday",
                    "days"
                  ],
                  "properties": {
                    "timeZone": {
                      "type": "string"
                    },
                    "firstWeekday": {
                      "type": "string"
                    },
                    "days": {
                      "type": "array",
                      "items": {
                        "$ref": "#/components/schemas/SummaryDay"
                      }
                    },
                    "truncated": {
                      "type": "boolean",
                      "description": "True when a series had more instances in the range than one series may (100,000): the days count it only up to where it stopped"
                    },
                    "truncatedSeries": {
                      "type": "array",
                      "items": {
                        "$ref": "#/components/schemas/TruncatedSeries"
                      }
                    }
                  }
                }
              }
            }
          },
          "default": {
            "$ref": "#/components/responses/Problem"
          }
        }
      }
    },
    "/api/v1/availability": {
      "get": {
        "operationId": "availability",
        "summary": "Free slots",
        "parameters": [
          {
            "$ref": "#/components/parameters/From"
          },
          {
            "$ref": "#/components/parameters/To"
          },
          {
            "$ref": "#/components/parameters/TimeZone"
          },
          {
            "name": "calendars",
            "in": "query",
            "required": false,
            "description": "Comma-separated calendar ids whose events are busy (default: all)",
            "schema": {
              "type": "string"
            }
          },
          {
            "name": "duration",
            "in": "query",
            "required": true,
            "description": "Slot length, at least a minute: minutes (60) or PT1H",
            "schema": {
              "type": "string"
            }
          },
          {
            "name": "step",
            "in": "query",
            "required": false,
            "description": "Slot step, at least a minute (default: the length)",
            "schema": {
              "type": "string"
            }
          },
          {
            "name": "workingHours",
            "in": "query",
            "required": false,
            "description": "Mon-Fri 09:00-17:00, Sat 10:00-14:00 (default: all day)",
            "schema": {
              "type": "string"
            }
          },
          {
            "name": "daysOff",
            "in": "query",
            "required": false,
            "description": "Dates without slots, comma-separated",
            "schema": {
              "type": "string"
            }
          },
          {
            "name": "dateHours",
            "in": "query",
            "required": false,
            "description": "Dates with other hours: 2026-12-24 09:00-12:00, 2026-12-31 10:00-14:00",
            "schema": {
              "type": "string"
            }
          },
          {
            "name": "bookingWindow",
            "in": "query",
            "required": false,
            "description": "Bookable dates FIRST/LAST, such as 2026-12-01/2026-12-20",
            "schema": {
              "type": "string"
            }
          },
          {
            "name": "bufferBefore",
            "in": "query",
            "required": false,
            "description": "Free time before each booking and busy block",
            "schema": {
              "type": "string"
            }
          },
          {
            "name": "bufferAfter",
            "in": "query",
            "required": false,
            "description": "Free time after",
            "schema": {
              "type": "string"
            }
          },
          {
            "name": "notice",
            "in": "query",
            "required": false,
            "description": "Minimum notice (PT2H, minutes) or nextDay",
            "schema": {
              "type": "string"
            }
          },
          {
            "name": "bookingWindowDays",
            "in": "query",
            "required": false,
            "description": "Bookable days from today",
            "schema": {
              "type": "integer",
              "minimum": 0
            }
          },
          {
            "name": "dailyLimit",
            "in": "query",
            "required": false,
            "description": "Busy blocks per day beyond which a day has no slots",
            "schema": {
              "type": "integer",
              "minimum": 0
            }
          },
          {
            "name": "weeklyLimit",
            "in": "query",
            "required": false,
            "description": "Busy blocks per week likewise",
            "schema": {
              "type": "integer",
              "minimum": 0
            }
          },
          {
            "name": "firstWeekday",
            "in": "query",
            "required": false,
            "description": "Where weeks start for weeklyLimit",
            "schema": {
              "type": "string",
              "enum": [
                "monday",
                "tuesday",
                "wednesday",
                "thursday",
                "friday",
                "saturday",
                "sunday"
              ]
            }
          },
          {
            "name": "tentative",
            "in": "query",
            "required": false,
            "description": "Tentative events count as busy (default) or free",
            "schema": {
              "type": "string",
              "enum": [
                "busy",
                "free"
              ]
            }
          },
          {
            "name": "allDay",
            "in": "query",
            "required": false,
            "description": "All-day events count as free (default) or busy",
            "schema": {
              "type": "string",
              "enum": [
                "busy",
                "free"
              ]
            }
          },
          {
            "name": "includePast",
            "in": "query",
            "required": false,
            "description": "Offer slots before now too (default false: past times are never offered, and pastExcluded says up to when the range was left out; the minimum notice does not apply with true)",
            "schema": {
              "type": "boolean"
            }
          }
        ],
        "responses": {
          "200": {
            "description": "OK",
            "content": {
              "application/json": {
                "schema": {
                  "type": "object",
                  "required": [
                    "timeZone",
                    "slots",
                    "truncated"
                  ],
                  "properties": {
                    "timeZone": {
                      "type": "string"
                    },
                    "slots": {
                      "type": "array",
                      "items": {
                        "$ref": "#/components/schemas/Slot"
                      }
                    },
                    "pastExcluded": {
                      "type": "object",
                      "description": "Present when part of the range lies before now and includePast is not true: slots are never offered there",
                      "required": [
                        "until",
                        "wholeRange"
                      ],
                      "properties": {
                        "until": {
                          "type": "string",
                          "description": "The end (UTC) of the part left out: now, or the range's end"
                        },
                        "wholeRange": {
                          "type": "boolean",
                          "description": "True when the whole range is past"
                        }
                      }
                    },
                    "truncated": {
                      "type": "boolean",
                      "description": "True when the answer lists only the first 10,000 items; continueFrom says where the rest begin"
                    },
                    "continueFrom": {
                      "type": "string",
                      "description": "With truncated: the time (UTC) of the first item left out; ask again from there for the rest"
                    }
                  }
                }
              }
            }
          },
          "default": {
            "$ref": "#/components/responses/Problem"
          }
        }
      }
    },
    "/api/v1/conflicts": {
      "post": {
        "operationId": "conflicts",
        "summary": "Each occurrence of a proposed event that collides with busy time, and why",
        "requestBody": {
          "required": true,
          "content": {
            "application/json": {
              "schema": {
                "allOf": [
                  {
                    "$ref": "#/components/schemas/EventInput"
                  }
                ],
                "type": "object",
                "properties": {
                  "calendars": {
                    "type": "array",
                    "items": {
                      "type": "string"
                    }
                  },
                  "bufferBefore": {
                    "type": [
                      "string",
                      "integer"
                    ]
                  },
                  "bufferAfter": {
                    "type": [
                      "string",
                      "integer"
                    ]
                  },
                  "tentative": {
                    "type": "string",
                    "enum": [
                      "busy",
                      "free"
                    ]
                  }
                }
              }
            }
          }
        },
        "responses": {
          "200": {
            "description": "OK",
            "content": {
              "application/json": {
                "schema": {
                  "type": "object",
                  "required": [
                    "conflicts"
                  ],
                  "properties": {
                    "conflicts": {
                      "type": "array",
                      "items": {
                        "$ref": "#/components/schemas/Conflict"
                      }
                    },
                    "truncated": {
                      "type": "boolean",
                      "description": "True when the proposed event has more than 1,000 occurrences in the range checked: only the first 1,000 were checked"
                    }
                  }
                }
              }
            }
          },
          "default": {
            "$ref": "#/components/responses/Problem"
          }
        }
      }
    },
    "/api/v1/busy": {
      "post": {
        "operationId": "importBusy",
        "summary": "Busy blocks from a device calendar into a busy-only calendar",
        "requestBody": {
          "required": true,
          "content": {
            "application/json": {
              "schema": {
                "type": "object",
                "additionalProperties": false,
                "required": [
                  "blocks"
                ],
                "properties": {
                  "calendar": {
                    "type": "string",
                    "description": "Title of the busy-only calendar (default Busy)"
                  },
                  "blocks": {
                    "type": "array",
                    "maxItems": 10000,
                    "items": {
                      "type": "object",
                      "additionalProperties": false,
                      "required": [
                        "start",
                        "end"
                      ],
                      "properties": {
                        "start": {
                          "type": "string"
                        },
                        "end": {
                          "type": "string"
                        }
                      }
                    }
                  },
                  "from": {
                    "type": "string"
                  },
                  "to": {
                    "type": "string"
                  }
                }
              }
            }
          }
        },
        "responses": {
          "200": {
            "description": "OK",
            "content": {
              "application/json": {
                "schema": {
                  "type": "object",
                  "required": [
                    "calendarId",
                    "imported",
                    "removed"
                  ],
                  "properties": {
                    "calendarId": {
                      "type": "string"
                    },
                    "imported": {
                      "type": "integer"
                    },
                    "removed": {
                      "type": "integer"
                    }
                  }
                }
              }
            }
          },
          "default": {
            "$ref": "#/components/responses/Problem"
          }
        }
      }
    },
    "/events/{id}.ics": {
      "get": {
        "operationId": "eventICS",
        "summary": "One event, or one occurrence, as an iCalendar file (METHOD:PUBLISH)",
        "parameters": [
          {
            "$ref": "#/components/parameters/EventID"
          },
          {
            "$ref": "#/components/parameters/Occurrence"
          },
          {
            "$ref": "#/components/parameters/OccurrenceZone"
          }
        ],
        "responses": {
          "200": {
            "description": "The file",
            "content": {
              "text/calendar": {
                "schema": {
                  "type": "string"
                }
              }
            }
          },
          "default": {
            "$ref": "#/components/responses/Problem"
          }
        }
      }
    }
  }
}
"""#
}
