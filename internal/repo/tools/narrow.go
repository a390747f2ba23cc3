package tools

// How to ask for what an answer left out: every cut an answer reports
// (results.Truncation) says it, with the parameters the tool has.
const (
	narrowRepositoryContext  = "call explain_module or get_architecture with module"
	narrowExternal           = "call get_dependencies (with module for one module's)"
	narrowAnalysis           = "a bound of the analysis itself: the engine reads at most its configured number of files"
	narrowArchitecture       = "pass module for one module's neighbourhood"
	narrowModuleArchitecture = "pass a module with fewer neighbours, or call get_dependencies / get_dependents with module"
	narrowDependencies       = "pass module for one module's dependencies"
	narrowModuleDependencies = "call get_architecture with module for the neighbourhood, explain_module for the module"
	narrowDependents         = "call get_change_impact with target for the files and tests, explain_module for a dependent"
	narrowModule             = "call get_dependencies / get_dependents with module for its edges, search_context for its symbols, get_module_history for its history"
	narrowModuleHistory      = "call get_module_history with target (and limit)"
	narrowTask               = "lower maxModules, or pass target"
	narrowImpact             = "lower maxFiles, or pass a file rather than a directory"
	narrowSearch             = "lower limit, or pass types"
	narrowHistory            = "lower limit, or pass a file or directory as target"
	narrowHistoryWindow      = "the analysis reads the newest commits of its history window only"
	narrowRevisionDiff       = "pass a base closer to revision"
	narrowRevisionSnapshot   = "call get_revision_diff against a nearby revision, or explain_module for a module"
	narrowConventions        = "pass category"
	narrowDecisions          = "pass origin (explicit or inferred)"
)
