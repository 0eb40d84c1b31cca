// Package mcpserver will serve the MCP tools (schema_list_tables,
// schema_get_table, logic_list, logic_get, release_info, schema_search)
// from the index in package store. It is built in a later step.
package mcpserver
