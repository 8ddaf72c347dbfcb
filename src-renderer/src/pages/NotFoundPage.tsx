/** A console address that names no page (an old bookmark, a typo). */
import { Link } from 'react-router';
import { EmptyState } from '../components/Status.tsx';
import { useI18n } from '../i18n/i18n.tsx';

export function NotFoundPage() {
  const { t } = useI18n();
  return (
    <EmptyState title={t('notFound.title')} action={<Link to="/">{t('notFound.home')}</Link>}>
      {t('notFound.body')}
    </EmptyState>
  );
}
