"""The ground floor: pure helpers every app may import; it imports no app."""
