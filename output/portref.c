/* A node's port as health findings and diff changes name it: an object of name, GUID and port, or null. */
#include "portref.h"

#include <inttypes.h>

void render_port_ref(struct emit *e, const char *key, const struct ibs_node *n, unsigned port, const char *text)
{
	if (!n) {
		emit_null(e, key, NULL);
		return;
	}
	emit_obj_open(e, key);
	emit_str(e, "name", text, ibs_node_name(n));
	emit_guid(e, "guid", " %s", n->ni.node_guid);
	emit_uint(e, "port", port ? "[%" PRIu64 "]" : NULL, port);
	emit_obj_close(e);
}
