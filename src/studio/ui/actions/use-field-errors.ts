/** Errors of a form's fields by path (for {@link SchemaForm}'s `onError`): the first one, or `null`. */
import { useCallback, useState } from "preact/hooks";

export function useFieldErrors() {
  const [errors, setErrors] = useState<Record<string, string>>({});
  const onError = useCallback((path: string, error: string | null) => {
    setErrors((prev) => {
      if (error === null) {
        if (!(path in prev)) return prev;
        const { [path]: _gone, ...rest } = prev;
        return rest;
      }
      return prev[path] === error ? prev : { ...prev, [path]: error };
    });
  }, []);
  const first = Object.values(errors)[0] ?? null;
  return { error: first, onError, reset: () => setErrors({}) };
}
