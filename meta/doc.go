// Package meta is the meta document (.rlm/meta.json): versioned guidance
// that the engine renders into the meta section of every root prompt —
// lessons learned from earlier runs and recommended budgets per model.
//
// The document is validated against the published JSON Schema
// (meta.schema.json, embedded) and the engine's own rules when it is
// loaded and before it is saved; an invalid document is refused with its
// field and reason. Lesson text is engine-authored: each lesson names a
// template of a fixed catalog and typed parameters, and its text must be
// exactly what the template renders, so no text taken from a run
// (context variables, model output, tool output) can enter the prompt
// through it. Package steward writes the document from run evidence.
package meta
