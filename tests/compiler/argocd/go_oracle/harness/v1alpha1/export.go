package v1alpha1

import "harness/schema"

func GlobMatch(pattern, val string, allowNegation bool, separators ...rune) bool {
	return globMatch(pattern, val, allowNegation, separators...)
}

func (proj AppProject) IsDestinationMatched(dst ApplicationDestination) bool {
	return proj.isDestinationMatched(dst)
}

func (proj AppProject) GroupKindNamePermitted(group, kind, name string, namespaced bool) bool {
	return proj.IsGroupKindNamePermitted(schema.GroupKind{Group: group, Kind: kind}, name, namespaced)
}
