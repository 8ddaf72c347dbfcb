/**
 * The top of a page: where it sits (breadcrumbs), its title, the actions on what it shows, and the
 * links between its sections.
 */
import type { ReactNode } from 'react';
import { Link, NavLink } from 'react-router';
import { useI18n } from '../i18n/i18n.tsx';

export interface Crumb {
  label: string;
  to: string;
}

interface PageHeaderProps {
  title: ReactNode;
  crumbs?: Crumb[];
  actions?: ReactNode;
  /** under the title: a badge, a subtitle */
  children?: ReactNode;
}

export function PageHeader({ title, crumbs, actions, children }: PageHeaderProps) {
  const { t } = useI18n();
  return (
    <header className="page-header">
      {crumbs && crumbs.length > 0 && (
        <nav aria-label={t('nav.breadcrumbs')} className="breadcrumbs">
          <ol>
            {crumbs.map((crumb) => (
              <li key={crumb.to}>
                <Link to={crumb.to}>{crumb.label}</Link>
              </li>
            ))}
          </ol>
        </nav>
      )}
      <div className="page-title">
        <h1>{title}</h1>
        {actions && <div className="actions">{actions}</div>}
      </div>
      {children}
    </header>
  );
}

export interface SectionLink {
  to: string;
  label: string;
}

/** Links between a page's sections; the current one is marked (aria-current). */
export function SectionNav({ label, links }: { label: string; links: SectionLink[] }) {
  return (
    <nav aria-label={label} className="section-nav">
      {links.map((link) => (
        <NavLink key={link.to} to={link.to} end>
          {link.label}
        </NavLink>
      ))}
    </nav>
  );
}
