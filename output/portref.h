/* A node's port as a JSON object (name, guid, port) with its text, shared by the health and diff views. */
#ifndef IBSCAN_OUT_PORTREF_H
#define IBSCAN_OUT_PORTREF_H

#include "emit.h"
#include "../fabric/model/model.h"

/* key: {name, guid, port} (text: the name through `text`, " 0x...", "[port]" unless port is 0), or null when n is NULL. */
void render_port_ref(struct emit *e, const char *key, const struct ibs_node *n, unsigned port, const char *text);

#endif
