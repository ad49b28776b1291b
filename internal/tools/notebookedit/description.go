package notebookedit

const description = `Replaces, inserts or deletes one cell of a Jupyter notebook (.ipynb file).

You must have read the notebook with the Read tool in this session before editing it, and it must not have changed since; otherwise the call fails and asks you to read it (again). notebook_path must be the absolute path of an existing .ipynb file; this tool does not create notebooks.

cell_id is the id of the cell, as the Read tool shows it. A notebook older than format 4.5 has no cell ids: there, name a cell by its position as "cell-N", counting from 0.

edit_mode says what to do (default replace):
- replace: new_source becomes the cell's source. The cell keeps its type unless cell_type says otherwise. A code cell's outputs and execution count are cleared, since they no longer match its source. cell_id is required.
- insert: a new cell with new_source is added after the cell named by cell_id, or at the beginning of the notebook when cell_id is omitted. cell_type is required. The result gives the new cell's id.
- delete: the cell named by cell_id is removed. new_source is required by the schema but ignored.

Everything else in the notebook (its metadata, the other cells, their outputs and any fields this tool does not know) is kept as it is, and the file stays valid nbformat 4 JSON. The notebook is written atomically. To edit code or text in a .ipynb file, use this tool rather than Edit or Write.`

const inputSchema = `{
  "type": "object",
  "properties": {
    "notebook_path": {
      "type": "string",
      "minLength": 1,
      "description": "The absolute path of the Jupyter notebook (.ipynb) to edit."
    },
    "cell_id": {
      "type": "string",
      "description": "The id of the cell to replace or delete, or the cell after which to insert (omit to insert at the beginning). \"cell-N\" names the N-th cell (from 0) of a notebook without cell ids."
    },
    "new_source": {
      "type": "string",
      "description": "The new source of the cell (ignored by delete)."
    },
    "cell_type": {
      "type": "string",
      "enum": ["code", "markdown"],
      "description": "The type of the cell. Required for insert; for replace it defaults to the cell's current type."
    },
    "edit_mode": {
      "type": "string",
      "enum": ["replace", "insert", "delete"],
      "default": "replace",
      "description": "What to do: replace the cell's source (default), insert a new cell, or delete the cell."
    }
  },
  "required": ["notebook_path", "new_source"],
  "additionalProperties": false
}`
